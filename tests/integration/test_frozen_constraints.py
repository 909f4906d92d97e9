"""Frozen constraints in lineage, end to end over HTTP on the real Neo4j and S3: a published
variant's trace (and upstream, and the replay of an episode of its plan) returns the document
versions its plan's approval froze, with their content, however the documents are edited
afterwards; a plan not yet approved is in force under the new versions; another client's trace
is NOT_FOUND."""

from __future__ import annotations

from typing import Any

from app.model.enums import Role
from app.settings import Settings
from tests.integration import acceptance_flow as af
from tests.integration.asset_helpers import same_client_caller
from tests.integration.conftest import Caller
from tests.integration.constraint_helpers import CONTENT, KIND_ORDER, create_documents, edit
from tests.integration.test_acceptance_section10 import make_asset, publish

VERSION = "id kind version content contentSha256"
TRACE = f"""query($id: ID!) {{ trace(variantId: $id) {{ variant {{ id status }}
  plan {{ id }} snapshot {{ id brandkitVersionId kbVersionId }} constraints {{ {VERSION} }} }} }}"""
UPSTREAM = f"""query($id: ID!) {{ upstream(id: $id) {{ snapshots {{ id }}
  constraints {{ {VERSION} }} }} }}"""
REPLAY = f"""query($id: ID!) {{ replayEpisode(id: $id) {{
  snapshots {{ snapshot {{ id }} plan {{ id }} constraints {{ {VERSION} }} }} }} }}"""
IN_FORCE = f"""query($id: ID!) {{ constraintsInForce(planId: $id) {{ frozen
  versions {{ {VERSION} }} }} }}"""
PLAN = {"name": "Next week", "createdBy": "AGENT", "targetPlatforms": ["IG"]}
# Over 16 KiB of JSON: the version's content goes to object storage, not the graph.
BIG_BRANDKIT = CONTENT["BRANDKIT"] | {
    "do": [f"Rule {n}: " + " ".join(["say it plainly."] * 60) for n in range(20)]
}
LATER_BRANDKIT = CONTENT["BRANDKIT"] | {"voice": "Bold and brief."}
LATER_KB = {"facts": [{"key": "warranty", "statement": "Tankless heaters: 15-year warranty."}]}


def approved_plan(alice: Caller, reviewer: Caller) -> dict[str, str]:
    """The section 10 plan graph (objective <- campaign <- blueprint -> post intent), approved
    by the reviewer: the client's current versions are frozen."""
    nodes = [{"key": k, "nodeType": t, "title": title} for k, t, title in af.PLAN_NODES]
    edges = [{"fromKey": a, "toKey": b, "edgeType": t} for a, b, t in af.PLAN_EDGES]
    made = alice.data(af.CREATE_GRAPH, {"input": {"plan": PLAN, "nodes": nodes, "edges": edges}})
    ids = {k["key"]: k["nodeId"] for k in made["createPlanGraph"]["keys"]}
    ids["plan"] = made["createPlanGraph"]["plan"]["id"]
    alice.data(af.TRANSITION_PLAN, {"id": ids["plan"], "to": "REVIEWED"})
    reviewer.data(af.TRANSITION_PLAN, {"id": ids["plan"], "to": "APPROVED"})
    return ids


def episode_of(alice: Caller, blueprint_id: str) -> str:
    """A closed episode that read the plan's blueprint node."""
    start = {"taskClass": "llm.creator", "trigger": "PLANNER_TICK"}
    episode_id = str(alice.data(af.START_EPISODE, {"i": start})["startEpisode"]["id"])
    reads = [{"id": blueprint_id, "role": "input"}]
    alice.data(af.LINK_EPISODE, {"id": episode_id, "r": reads, "w": []})
    alice.data(af.CLOSE_EPISODE, {"id": episode_id, "i": {"status": "SUCCESS"}})
    return episode_id


def by_kind(versions: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    assert [v["kind"] for v in versions] == KIND_ORDER, versions
    return {v["kind"]: v for v in versions}


def stored_in_s3(session: Any, version_id: str) -> bool:
    query = "MATCH (v:ConstraintVersion {id: $id}) RETURN v.content_uri IS NOT NULL AS stored"
    return bool(session.run(query, id=version_id).single()["stored"])


def test_a_later_edit_does_not_change_what_an_approved_plans_trace_returns(
    settings: Settings, alice: Caller, bob: Caller, neo4j_session: Any
) -> None:
    reviewer = same_client_caller(settings, neo4j_session, alice, Role.REVIEWER)
    documents = create_documents(reviewer)
    brandkit, kb = documents["BRANDKIT"], documents["KNOWLEDGE_BASE"]
    big = edit(reviewer, brandkit["id"], BIG_BRANDKIT, reason="the full style guide")
    assert big["currentVersion"] == 2 and stored_in_s3(neo4j_session, big["currentVersionId"])
    ids = approved_plan(alice, reviewer)
    make_asset(settings, alice, reviewer, ids)
    publish(settings, alice, ids)
    episode_id = episode_of(alice, ids["blueprint"])
    expected = {kind: (d["currentVersionId"], 1, CONTENT[kind]) for kind, d in documents.items()}
    expected["BRANDKIT"] = (big["currentVersionId"], 2, BIG_BRANDKIT)

    before = alice.data(TRACE, {"id": ids["variant"]})["trace"]
    assert before["variant"] == {"id": ids["variant"], "status": "PUBLISHED"}
    assert before["plan"] == {"id": ids["plan"]}
    frozen = by_kind(before["constraints"])
    assert {k: (v["id"], v["version"], v["content"]) for k, v in frozen.items()} == expected
    assert before["snapshot"]["brandkitVersionId"] == big["currentVersionId"]
    assert before["snapshot"]["kbVersionId"] == kb["currentVersionId"]

    later_brandkit = edit(reviewer, brandkit["id"], LATER_BRANDKIT, reason="bolder voice")
    later_kb = edit(reviewer, kb["id"], LATER_KB, reason="longer warranty")
    assert (later_brandkit["currentVersion"], later_kb["currentVersion"]) == (3, 2)

    counted = alice.gql(TRACE, {"id": ids["variant"]}, **{"X-Agentmem-Roundtrips": "1"})
    assert counted["data"]["trace"] == before  # the S3-held version read back, checksum checked
    assert counted["extensions"]["cypherRoundTrips"] == 1  # the frozen documents included
    upstream = alice.data(UPSTREAM, {"id": ids["variant"]})["upstream"]
    assert upstream["snapshots"] == [{"id": before["snapshot"]["id"]}]
    assert upstream["constraints"] == before["constraints"]
    replay = alice.data(REPLAY, {"id": episode_id})["replayEpisode"]
    assert [(s["snapshot"], s["plan"]) for s in replay["snapshots"]] == [
        ({"id": before["snapshot"]["id"]}, {"id": ids["plan"]})
    ]
    assert replay["snapshots"][0]["constraints"] == before["constraints"]
    approved = alice.data(IN_FORCE, {"id": ids["plan"]})["constraintsInForce"]
    assert approved["frozen"] is True and approved["versions"] == before["constraints"]

    new_plan = alice.data(af.CREATE_GRAPH, {"input": {"plan": PLAN, "nodes": [], "edges": []}})
    unapproved = alice.data(IN_FORCE, {"id": new_plan["createPlanGraph"]["plan"]["id"]})
    current = by_kind(unapproved["constraintsInForce"]["versions"])
    assert unapproved["constraintsInForce"]["frozen"] is False
    assert (current["BRANDKIT"]["id"], current["BRANDKIT"]["content"]) == (
        later_brandkit["currentVersionId"],
        LATER_BRANDKIT,
    )
    assert (current["KNOWLEDGE_BASE"]["id"], current["KNOWLEDGE_BASE"]["content"]) == (
        later_kb["currentVersionId"],
        LATER_KB,
    )
    unchanged = set(KIND_ORDER) - {"BRANDKIT", "KNOWLEDGE_BASE"}
    assert {k: current[k] for k in unchanged} == {k: frozen[k] for k in unchanged}

    for document, record_id in ((TRACE, ids["variant"]), (REPLAY, episode_id)):
        other = af.random_id()
        theirs = af.not_found_answer(bob.gql(document, {"id": record_id}), record_id)
        missing = af.not_found_answer(bob.gql(document, {"id": other}), other)
        assert theirs == missing and theirs[0] == "NOT_FOUND", (document, theirs)


def test_the_trace_of_a_variant_of_an_unapproved_plan_has_no_constraints(
    settings: Settings, alice: Caller, neo4j_session: Any
) -> None:
    reviewer = same_client_caller(settings, neo4j_session, alice, Role.REVIEWER)
    create_documents(reviewer)
    node = {"key": "blueprint", "nodeType": "BLUEPRINT_INSTANCE", "title": "Reel"}
    made = alice.data(af.CREATE_GRAPH, {"input": {"plan": PLAN, "nodes": [node], "edges": []}})
    graph = made["createPlanGraph"]
    ids = {"blueprint": graph["keys"][0]["nodeId"], "plan": graph["plan"]["id"]}
    make_asset(settings, alice, reviewer, ids)
    trace = alice.data(TRACE, {"id": ids["variant"]})["trace"]
    assert trace["plan"] == {"id": ids["plan"]}
    assert trace["snapshot"] is None and trace["constraints"] == []
