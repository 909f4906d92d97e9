"""Seed 000, section 10 (MVP acceptance criteria) as one agent team's flow for one client, built
only through the public GraphQL API over HTTP, checked against the real Neo4j and S3:

1. every Plan / Asset / Publish / Engagement action is traceable via ids (trace, upstream,
   downstream); 2. every publish run has evidence artifacts; 3. conversation threads keep a
   summary and need no raw context by default; 4. agent episodes record inputs, tool calls and
   outputs; 5. client isolation holds in every query and storage path.

Direct Cypher is used only to read the graph."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from typing import Any

import httpx
import pytest

from app.domain.kernel.errors import NotFound
from app.model.enums import Role
from app.settings import Settings
from tests.integration import acceptance_flow as af
from tests.integration.asset_helpers import (
    ADD_EVIDENCE,
    CREATE_APPROVAL,
    CREATE_PACKAGE,
    CREATE_PROMPT,
    DECIDE,
    FINISH_RUN,
    OUTSIDE_FEED,
    START_RUN,
    TRANSITION_ASSET,
    TRANSITION_PACKAGE,
    TRANSITION_VARIANT,
    b64,
    count,
    create_asset,
    create_variant,
    error_code,
    principal_of,
    same_client_caller,
    store_for,
)
from tests.integration.conftest import Caller
from tests.integration.constraint_helpers import KIND_ORDER, create_documents

Ids = dict[str, str]


def build_plan(alice: Caller, reviewer: Caller) -> Ids:
    """objective ← campaign ← blueprint → post intent, approved under frozen constraints."""
    nodes = [{"key": k, "nodeType": t, "title": title} for k, t, title in af.PLAN_NODES]
    edges = [{"fromKey": a, "toKey": b, "edgeType": t} for a, b, t in af.PLAN_EDGES]
    plan = {"name": "Feb Week 1", "createdBy": "AGENT", "targetPlatforms": ["IG"]}
    made = alice.data(af.CREATE_GRAPH, {"input": {"plan": plan, "nodes": nodes, "edges": edges}})
    ids = {k["key"]: k["nodeId"] for k in made["createPlanGraph"]["keys"]}
    ids["plan"] = made["createPlanGraph"]["plan"]["id"]
    assert set(ids) == {"plan", "objective", "campaign", "blueprint", "post_intent"}
    alice.data(af.TRANSITION_PLAN, {"id": ids["plan"], "to": "REVIEWED"})
    documents = create_documents(reviewer)
    ids["kb_document"] = documents["KNOWLEDGE_BASE"]["id"]
    for kind, document in documents.items():
        ids[f"{kind.lower()}_version"] = document["currentVersionId"]
    approve = {"id": ids["plan"], "to": "APPROVED", "c": af.CONSTRAINTS}
    assert error_code(alice.gql(af.TRANSITION_PLAN, approve)) == "FORBIDDEN"
    approved = reviewer.data(af.TRANSITION_PLAN, approve)["transitionPlan"]
    alice.data(af.TRANSITION_PLAN, {"id": ids["plan"], "to": "EXECUTING"})
    read = alice.data(af.PLAN_CONSTRAINTS, {"id": ids["plan"]})["plan"]
    assert read["status"] == "EXECUTING"
    assert read["constraints"]["kbVersionId"] == ids["knowledge_base_version"]
    ids["snapshot"] = read["constraints"]["id"]
    assert approved["constraintsRef"] == ids["snapshot"]
    return ids


def make_asset(settings: Settings, alice: Caller, reviewer: Caller, ids: Ids) -> None:
    """Asset from the blueprint, a variant with media, its prompt, a required approval."""
    asset = create_asset(alice, sourceBlueprintInstanceId=ids["blueprint"], title="Tankless reel")
    media = os.urandom(4096)
    variant = create_variant(alice, asset["id"], contentBase64=b64(media), contentType="video/mp4")
    assert variant["checksum"] == hashlib.sha256(media).hexdigest()
    assert af.stored_sha256(settings, alice, variant["artifactUri"]) == variant["checksum"]
    refs = {"assetIds": [asset["id"]], "variantIds": [variant["id"]]}
    prompt_input = {
        "taskClass": "VIDEO_GEN",
        "provider": "acme",
        "model": "reel-1",
        "promptText": "A 30 second reel: cold showers are optional with a tankless heater.",
        "inputRefs": {"plan_node_id": ids["blueprint"]},
        "outputRefs": refs,
    }
    prompt = alice.data(CREATE_PROMPT, {"input": prompt_input})["createPromptArtifact"]
    assert httpx.get(prompt["promptTextUrl"]).text == prompt_input["promptText"]
    assert af.url_key(prompt["promptTextUrl"]).startswith(f"client/{alice.client_id}/")
    approval = alice.data(
        CREATE_APPROVAL, {"input": {"variantId": variant["id"], "requiredByPolicy": True}}
    )["createApprovalRecord"]
    decision = {"status": "APPROVED", "notes": "on brand", "contentBase64": b64(b"signed off")}
    decided = reviewer.data(DECIDE, {"id": approval["id"], "input": decision})["decideApproval"]
    assert decided["status"] == "APPROVED" and decided["evidenceUri"]
    for to in ("GENERATED", "APPROVED"):
        alice.data(TRANSITION_ASSET, {"id": asset["id"], "to": to})
    for to in ("READY", "APPROVED"):
        alice.data(TRANSITION_VARIANT, {"id": variant["id"], "to": to})
    ids |= {
        "asset": asset["id"],
        "variant": variant["id"],
        "prompt": prompt["id"],
        "approval": approval["id"],
    }


def start_publishing(alice: Caller, ids: Ids) -> tuple[dict[str, Any], str]:
    """The variant's package, moved to PUBLISHING, and the id of a run started on IG."""
    package_input = {
        "planId": ids["plan"],
        "variantIds": [ids["variant"]],
        "targetPlatforms": ["IG"],
    }
    package = alice.data(CREATE_PACKAGE, {"input": package_input})["createPublishPackage"]
    alice.data(TRANSITION_PACKAGE, {"id": package["id"], "to": "PUBLISHING"})
    run = alice.data(START_RUN, {"input": {"packageId": package["id"], "platform": "IG"}})
    return package, str(run["startPublishRun"]["id"])


def publish(settings: Settings, alice: Caller, ids: Ids) -> None:
    """Criterion 2: the run cannot succeed without evidence; the evidence is in S3."""
    package, run_id = start_publishing(alice, ids)
    refused = alice.gql(FINISH_RUN, {"id": run_id, "input": {"status": "SUCCEEDED"}})
    assert error_code(refused) == "VALIDATION" and "evidence" in refused["errors"][0]["message"]
    early = alice.gql(TRANSITION_PACKAGE, {"id": package["id"], "to": "PUBLISHED"})
    assert error_code(early) == "VALIDATION"
    screenshot = os.urandom(2048)
    evidence_input = {
        "runId": run_id,
        "kind": "SCREENSHOT",
        "contentBase64": b64(screenshot),
        "contentType": "image/png",
    }
    evidence = alice.data(ADD_EVIDENCE, {"input": evidence_input})["addPublishEvidence"]
    assert evidence["sha256"] == hashlib.sha256(screenshot).hexdigest()
    assert evidence["uri"].startswith(f"s3://{settings.s3_bucket}/client/{alice.client_id}/")
    assert af.stored_sha256(settings, alice, evidence["uri"]) == evidence["sha256"]
    done = alice.data(
        FINISH_RUN, {"id": run_id, "input": {"status": "SUCCEEDED", "externalRef": "ig:m1"}}
    )
    assert done["finishPublishRun"]["status"] == "SUCCEEDED"
    published = alice.data(TRANSITION_PACKAGE, {"id": package["id"], "to": "PUBLISHED"})
    assert published["transitionPublishPackage"]["status"] == "PUBLISHED"
    alice.data(TRANSITION_VARIANT, {"id": ids["variant"], "to": "PUBLISHED"})
    alice.data(TRANSITION_ASSET, {"id": ids["asset"], "to": "PUBLISHED"})
    ids |= {"package": package["id"], "run": run_id, "evidence": evidence["id"]}


def converse(settings: Settings, alice: Caller, ids: Ids) -> None:
    """Criterion 3: the comment thread joins the summary queue and keeps a summary."""
    thread_input = {
        "platform": "INSTAGRAM",
        "threadType": "COMMENT_THREAD",
        "externalThreadRef": "ig:media:m1:comments",
        "participantExternalRef": "ig:user:dana",
    }
    thread = alice.data(af.CREATE_THREAD, {"input": thread_input})["createConversationThread"]
    thread_id = thread["thread"]["id"]
    events = af.comment_events(thread_id, photo=os.urandom(512))
    appended = alice.data(af.APPEND_EVENTS, {"events": events})["appendConversationEvents"]
    assert appended["appended"] == len(af.COMMENTS) and appended["duplicates"] == 0
    results = [r["event"] for r in appended["results"]]
    assert [e["sequence"] for e in results] == list(range(1, len(af.COMMENTS) + 1))
    assert len(results[4]["mediaUris"]) == 1
    queue = alice.data(af.QUEUE)["threadsNeedingSummary"]
    assert {"id": thread_id, "needsSummaryReason": "every_n_events"} in queue
    out = alice.data(af.SUMMARIZE, {"t": thread_id})["summarizeThread"]
    summary = out["summary"]
    assert summary["method"] == "extractive" and summary["eventsCovered"] == len(af.COMMENTS)
    assert out["thread"] == {"needsSummary": False, "summaryVersion": 1}
    short = summary["summaryShort"]
    assert "Dana" in short and "tankless water heater install" in short
    assert "free in-home estimate" in short and "Open questions: Address." in short
    long_text = asyncio.run(store_for(settings).get(principal_of(alice), summary["summaryLongUri"]))
    assert b"## Wants" in long_text
    assert thread_id not in [t["id"] for t in alice.data(af.QUEUE)["threadsNeedingSummary"]]
    # Reading the thread gives the summary without selecting (or loading) a single event.
    body = alice.gql(af.READ_THREAD, {"id": thread_id}, **{"X-Agentmem-Roundtrips": "1"})
    read = body["data"]["conversationThread"]
    assert read["summaryShort"] == short and read["openQuestions"] == ["Address"]
    assert read["eventCount"] == len(af.COMMENTS) and body["extensions"]["cypherRoundTrips"] == 1
    ids |= {"thread": thread_id, "first_event": results[0]["id"], "summary": summary["id"]}


def engage(alice: Caller, neo4j_session: Any, ids: Ids) -> None:
    """The post went live; the AI's reply to a comment failed, with a reason."""
    links = {"variantId": ids["variant"], "publishRunId": ids["run"]}
    base = {"platform": "IG", "actor": "PLATFORM", "result": "SUCCESS", "externalRef": "ig:m1"}
    live = base | links | {"eventKind": "POST_PUBLISHED", "linkedAssetId": ids["asset"]}
    published = alice.data(af.RECORD_EVENT, {"input": live})["recordEngagementEvent"]["event"]
    failed_input = links | {
        "platform": "IG",
        "eventKind": "COMMENT_REPLY",
        "actor": "AI",
        "result": "FAIL",
        "threadId": ids["thread"],
        "externalRef": "ig:reply:7",
    }
    no_reason = alice.gql(af.RECORD_EVENT, {"input": failed_input})
    assert error_code(no_reason) == "VALIDATION"
    failed_input["failureReason"] = "rate_limited"
    failed = alice.data(af.RECORD_EVENT, {"input": failed_input})["recordEngagementEvent"]["event"]
    assert (failed["result"], failed["failureReason"]) == ("FAIL", "rate_limited")
    assert failed["variant"] == {"id": ids["variant"]} and failed["publishRun"] == {
        "id": ids["run"]
    }
    assert failed["thread"] == {"id": ids["thread"]} and published["asset"] == {"id": ids["asset"]}
    concerns = "MATCH (:EngagementEvent {id: $e})-[:CONCERNS]->(x) RETURN x.id AS id ORDER BY id"
    assert [r["id"] for r in neo4j_session.run(concerns, e=published["id"])] == sorted(
        [ids["asset"], ids["variant"], ids["run"]]
    )
    ids |= {"published_event": published["id"], "failed_reply": failed["id"]}


def run_episode(settings: Settings, alice: Caller, ids: Ids) -> None:
    """Criterion 4: inputs, reads, tool calls and output in a checksummed S3 log; replay."""
    inputs = {"task": "reply to comments on the reel", "thread_id": ids["thread"]}
    start = {"taskClass": "community.reply", "trigger": "WEBHOOK_EVENT", "inputRefs": inputs}
    episode = alice.data(af.START_EPISODE, {"i": start})["startEpisode"]
    episode_id = episode["id"]
    reads = [{"id": ids["blueprint"], "role": "context"}, {"id": ids["thread"], "role": "input"}]
    writes = [{"id": ids["asset"], "role": "output"}, {"id": ids["failed_reply"], "role": "output"}]
    linked = alice.data(af.LINK_EPISODE, {"id": episode_id, "r": reads, "w": writes})
    linked = linked["linkEpisodeRecords"]
    assert linked["readPlanNodes"] == [{"id": ids["blueprint"]}]
    assert linked["readThreads"] == [{"id": ids["thread"]}]
    assert linked["wroteEngagement"] == [{"id": ids["failed_reply"]}]
    calls = [
        {"tool": "threads.summary", "args": {"id": ids["thread"]}, "result": "Dana wants..."},
        {"tool": "ig.reply", "args": {"text": "Thanks Dana!"}, "error": "rate_limited"},
    ]
    alice.data(af.APPEND_CALLS, {"id": episode_id, "e": calls})
    output = "reply failed (rate limited); escalating to retry queue"
    close = {"status": "FAILED", "outputSummary": output, "decisions": [{"retry_in_s": 600}]}
    closed = alice.data(af.CLOSE_EPISODE, {"id": episode_id, "i": close})["closeEpisode"]
    uri, sha = closed["toolCallLogUri"], closed["toolCallLogSha256"]
    data = asyncio.run(store_for(settings).get(principal_of(alice), uri))
    assert hashlib.sha256(data).hexdigest() == sha
    lines = [json.loads(line) for line in data.decode().splitlines()]
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        by_kind.setdefault(line["kind"], []).append(line)
    assert by_kind["input"][0]["input_refs"] == inputs
    assert [x["call"] for x in by_kind["tool_call"]] == calls
    assert sorted(x["id"] for x in by_kind["read"]) == sorted([ids["blueprint"], ids["thread"]])
    assert sorted(x["id"] for x in by_kind["write"]) == sorted([ids["asset"], ids["failed_reply"]])
    assert by_kind["output"][0]["output_summary"] == output
    replay = alice.data(af.REPLAY, {"id": episode_id})["replayEpisode"]
    assert replay["inputRefs"] == inputs and replay["episode"]["status"] == "FAILED"
    assert sorted(r["record"]["id"] for r in replay["reads"]) == sorted(
        [ids["blueprint"], ids["thread"]]
    )
    snapshots = [
        (s["snapshot"]["id"], s["plan"]["id"], s["inForceAtStart"]) for s in replay["snapshots"]
    ]
    assert snapshots == [(ids["snapshot"], ids["plan"], True)]
    frozen = {version["id"] for version in replay["snapshots"][0]["constraints"]}
    assert frozen == {ids[f"{kind.lower()}_version"] for kind in KIND_ORDER}
    assert replay["log"]["uri"] == uri and replay["log"]["sha256"] == sha
    assert replay["log"]["toolCalls"] == len(calls)
    assert hashlib.sha256(httpx.get(replay["log"]["url"]).content).hexdigest() == sha
    log_url = alice.data(af.LOG_URL, {"id": episode_id})["episodeToolCallLogUrl"]
    for url in (replay["log"]["url"], log_url):
        assert af.url_key(url) == uri.removeprefix(f"s3://{settings.s3_bucket}/")
        assert af.url_key(url).startswith(f"client/{alice.client_id}/")
    lesson = {
        "scope": "PLATFORM",
        "lessonType": "WHAT_FAILED",
        "statement": "Burst replies on IG comments get rate limited; space them out.",
        "confidence": 0.6,
        "decayHalfLifeDays": 30,
        "evidenceEpisodeIds": [episode_id],
    }
    made = alice.data(af.CREATE_LESSON, {"i": lesson})["createLesson"]
    assert made["evidenceEpisodes"] == [{"id": episode_id}]
    ids |= {"episode": episode_id, "lesson": made["id"]}


def check_lineage(alice: Caller, ids: Ids) -> None:
    """Criterion 1: trace, upstream and downstream name every id the flow created."""
    t = alice.data(af.TRACE, {"id": ids["variant"]})["trace"]
    assert t["variant"] == {"id": ids["variant"], "status": "PUBLISHED"}
    assert t["asset"] == {"id": ids["asset"]} and t["blueprint"] == {"id": ids["blueprint"]}
    assert sorted(a["id"] for a in t["ancestors"]) == sorted([ids["campaign"], ids["objective"]])
    assert t["plan"] == {"id": ids["plan"]}
    assert t["snapshot"] == {"id": ids["snapshot"], "kbVersionId": ids["knowledge_base_version"]}
    assert t["constraints"] == [
        {"id": ids[f"{kind.lower()}_version"], "kind": kind, "version": 1} for kind in KIND_ORDER
    ]
    assert t["prompts"] == [{"id": ids["prompt"]}]
    assert t["approvals"] == [
        {"id": ids["approval"], "status": "APPROVED", "reviewerUserId": "reviewer:reviewer-1"}
    ]
    assert t["packages"] == [{"id": ids["package"], "status": "PUBLISHED"}]
    assert [r["run"] for r in t["runs"]] == [{"id": ids["run"], "status": "SUCCEEDED"}]
    assert [e["id"] for e in t["runs"][0]["evidence"]] == [ids["evidence"]]
    up = alice.data(af.UPSTREAM, {"id": ids["variant"]})["upstream"]
    assert (up["startId"], up["startLabel"]) == (ids["variant"], "AssetVariant")
    expected = {
        "variants": [ids["variant"]],
        "assets": [ids["asset"]],
        "blueprints": [ids["blueprint"]],
        "ancestors": sorted([ids["campaign"], ids["objective"]]),
        "plans": [ids["plan"]],
        "snapshots": [ids["snapshot"]],
        "constraints": sorted(ids[f"{kind.lower()}_version"] for kind in KIND_ORDER),
        "prompts": [ids["prompt"]],
        "approvals": [ids["approval"]],
    }
    assert {k: sorted(x["id"] for x in up[k]) for k in expected} == expected
    down = alice.data(af.DOWNSTREAM, {"id": ids["plan"]})["downstream"]
    plan_nodes = ["objective", "campaign", "blueprint", "post_intent"]
    assert sorted(n["id"] for n in down["nodes"]) == sorted(ids[k] for k in plan_nodes)
    for key, name in [("assets", "asset"), ("variants", "variant"), ("prompts", "prompt"),
                      ("approvals", "approval"), ("packages", "package")]:  # fmt: skip
        assert [x["id"] for x in down[key]] == [ids[name]], key
    assert down["runs"] == [{"id": ids["run"], "status": "SUCCEEDED"}]
    assert [e["id"] for e in down["evidence"]] == [ids["evidence"]]


def check_isolation(
    settings: Settings, alice: Caller, bob: Caller, neo4j_session: Any, ids: Ids
) -> None:
    """Criterion 5: bob sees none of alice's records or objects; alice's keys are all hers."""
    for name, query in af.GET_QUERIES.items():
        document, other = af.get_document(query), af.random_id()
        theirs = af.not_found_answer(bob.gql(document, {"id": ids[name]}), ids[name])
        missing = af.not_found_answer(bob.gql(document, {"id": other}), other)
        assert theirs == missing and theirs[0] == "NOT_FOUND", (name, theirs, missing)
        assert alice.data(document, {"id": ids[name]})[query]["id"] == ids[name]
    for document, name in af.SPECIAL_QUERIES:
        other = af.random_id()
        theirs = af.not_found_answer(bob.gql(document, {"id": ids[name]}), ids[name])
        missing = af.not_found_answer(bob.gql(document, {"id": other}), other)
        assert theirs == missing and theirs[0] == "NOT_FOUND", (document, name, theirs)
        assert not alice.gql(document, {"id": ids[name]}).get("errors"), (document, name)
    for query in af.LIST_QUERIES:
        document = af.list_document(query)
        assert bob.data(document, {"ids": None})[query]["totalCount"] == 0, query
        assert bob.data(document, {"ids": list(ids.values())})[query]["totalCount"] == 0, query
    assert bob.data(af.QUEUE)["threadsNeedingSummary"] == []

    prefix = f"s3://{settings.s3_bucket}/client/{alice.client_id}/"
    recorded = af.s3_uris(neo4j_session, alice.client_id)
    labels = {label for label, _, _ in recorded}
    assert labels >= {
        "AssetVariant", "PromptArtifact", "ApprovalRecord", "EvidenceArtifact",
        "ConversationEvent", "ConversationThread", "ThreadSummary", "AgentEpisode",
    }  # fmt: skip
    outside = [(label, key, uri) for label, key, uri in recorded if not uri.startswith(prefix)]
    assert outside == []
    stored = af.object_keys(settings, alice.client_id)
    bob_store, bob_principal = store_for(settings), principal_of(bob)
    for _, _, uri in recorded:
        assert uri.removeprefix(f"s3://{settings.s3_bucket}/") in stored, uri
        with pytest.raises(NotFound):
            asyncio.run(bob_store.get(bob_principal, uri))
        with pytest.raises(NotFound):
            asyncio.run(bob_store.presigned_url(bob_principal, uri))
    assert af.object_keys(settings, bob.client_id) == []
    on_bob = (
        f"MATCH (n {{client_id: $c}}) WHERE NOT n:Client AND NOT n:ApiKey AND {OUTSIDE_FEED} "
        "RETURN count(n)"
    )
    assert count(neo4j_session, on_bob, c=bob.client_id) == 0


def test_mvp_acceptance_criteria_as_one_agent_team_flow(
    settings: Settings, alice: Caller, bob: Caller, neo4j_session: Any
) -> None:
    reviewer = same_client_caller(settings, neo4j_session, alice, Role.REVIEWER)
    ids = build_plan(alice, reviewer)
    make_asset(settings, alice, reviewer, ids)
    publish(settings, alice, ids)
    converse(settings, alice, ids)
    engage(alice, neo4j_session, ids)
    run_episode(settings, alice, ids)
    check_lineage(alice, ids)
    check_isolation(settings, alice, bob, neo4j_session, ids)
    assert len(set(ids.values())) == len(ids) == 26
