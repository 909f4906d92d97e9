"""The asset graph and publishing over real HTTP, Neo4j and S3: lineage from a plan node to a
published package with evidence, the approval gate, dedupe, atomicity and isolation."""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import os
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from app.domain.kernel.errors import NotFound
from app.model.enums import Role
from app.settings import Settings
from tests.integration.asset_helpers import (
    ADD_EVIDENCE,
    CREATE_APPROVAL,
    CREATE_ASSET,
    CREATE_PACKAGE,
    CREATE_PROMPT,
    CREATE_VARIANT,
    DECIDE,
    FINISH_RUN,
    MISSING_ID,
    START_RUN,
    TRANSITION_ASSET,
    TRANSITION_PACKAGE,
    TRANSITION_VARIANT,
    UPDATE_ASSET,
    UPDATE_PACKAGE,
    UPDATE_VARIANT,
    b64,
    count,
    create_asset,
    create_plan,
    create_plan_node,
    create_variant,
    error_code,
    principal_of,
    same_client_caller,
    snapshot,
    store_for,
)
from tests.integration.conftest import Caller

RELS = "MATCH (:{a} {{id: $a}})-[:{rel}]->(:{b} {{id: $b}}) RETURN count(*)"


def rel_count(session: Any, a: str, rel: str, b: str, a_id: str, b_id: str) -> int:
    return count(session, RELS.format(a=a, rel=rel, b=b), a=a_id, b=b_id)


def stored_sha256(settings: Settings, caller: Caller, uri: str) -> str:
    data = asyncio.run(store_for(settings).get(principal_of(caller), uri))
    return hashlib.sha256(data).hexdigest()


def test_plan_node_to_published_package_with_evidence(
    settings: Settings, alice: Caller, neo4j_session: Any
) -> None:
    reviewer = same_client_caller(settings, neo4j_session, alice, Role.REVIEWER)
    plan_id = create_plan(alice)
    node_id = create_plan_node(neo4j_session, alice, plan_id)
    asset = create_asset(alice, sourceBlueprintInstanceId=node_id, summary="30s reel")
    assert asset["status"] == "DRAFT" and asset["sourceBlueprintInstanceId"] == node_id
    assert rel_count(neo4j_session, "Asset", "FROM_BLUEPRINT", "PlanNode", asset["id"], node_id)

    media = os.urandom(4096)
    variant = create_variant(
        alice,
        asset["id"],
        contentBase64=b64(media),
        contentType="video/mp4",
        dimensions={"width": 1080, "height": 1920},
        durationSeconds=29.5,
        captionText="Spring is here",
    )
    assert variant["checksum"] == hashlib.sha256(media).hexdigest()
    assert variant["deduplicated"] is False and variant["status"] == "PENDING"
    assert variant["dimensions"] == {"width": 1080, "height": 1920}
    assert variant["artifactUri"].endswith(
        f"/client/{alice.client_id}/variants/{variant['id']}/media"
    )
    assert stored_sha256(settings, alice, variant["artifactUri"]) == variant["checksum"]
    assert rel_count(
        neo4j_session, "Asset", "HAS_VARIANT", "AssetVariant", asset["id"], variant["id"]
    )

    text = "Write a 30 second reel script for the spring offer. Tone: warm. ✓"
    refs = {"assetIds": [asset["id"]], "variantIds": [variant["id"]]}
    prompt = alice.data(
        CREATE_PROMPT,
        {
            "input": {
                "taskClass": "VIDEO_GEN",
                "provider": "acme",
                "model": "reel-1",
                "promptText": text,
                "params": {"temperature": 0.7},
                "inputRefs": [{"plan_node_id": node_id}],
                "outputRefs": refs,
            }
        },
    )["createPromptArtifact"]
    assert prompt["promptText"] == text and prompt["params"] == {"temperature": 0.7}
    assert prompt["promptSha256"] == hashlib.sha256(text.encode()).hexdigest()
    assert prompt["outputRefs"] == {"asset_ids": [asset["id"]], "variant_ids": [variant["id"]]}
    assert httpx.get(prompt["promptTextUrl"]).text == text
    assert (
        count(
            neo4j_session,
            "MATCH (:PromptArtifact {id: $id})-[:GENERATED]->() RETURN count(*)",
            id=prompt["id"],
        )
        == 2
    )

    required = alice.data(
        CREATE_APPROVAL, {"input": {"variantId": variant["id"], "requiredByPolicy": True}}
    )["createApprovalRecord"]
    optional = alice.data(
        CREATE_APPROVAL, {"input": {"assetId": asset["id"], "requiredByPolicy": False}}
    )["createApprovalRecord"]
    assert required["status"] == optional["status"] == "PENDING"
    package = alice.data(
        CREATE_PACKAGE,
        {"input": {"planId": plan_id, "variantIds": [variant["id"]], "targetPlatforms": ["IG"]}},
    )["createPublishPackage"]
    assert package["status"] == "QUEUED" and package["variantIds"] == [variant["id"]]
    assert rel_count(neo4j_session, "PublishPackage", "FOR_PLAN", "Plan", package["id"], plan_id)

    before = snapshot(neo4j_session, alice.client_id)
    blocked = alice.gql(TRANSITION_PACKAGE, {"id": package["id"], "to": "PUBLISHING"})
    assert error_code(blocked) == "APPROVAL_REQUIRED"
    assert blocked["errors"][0]["extensions"]["variant_ids"] == [variant["id"]]
    forbidden = alice.gql(DECIDE, {"id": required["id"], "input": {"status": "APPROVED"}})
    assert error_code(forbidden) == "FORBIDDEN"
    assert snapshot(neo4j_session, alice.client_id) == before

    proof = b"signed off in the review call"
    decided = reviewer.data(
        DECIDE,
        {
            "id": required["id"],
            "input": {
                "status": "APPROVED",
                "notes": "ok",
                "contentBase64": b64(proof),
                "contentType": "text/plain",
            },
        },
    )["decideApproval"]
    assert decided["status"] == "APPROVED" and decided["reviewerUserId"] == "reviewer:reviewer-1"
    assert (
        stored_sha256(settings, alice, decided["evidenceUri"]) == hashlib.sha256(proof).hexdigest()
    )
    again = reviewer.gql(DECIDE, {"id": required["id"], "input": {"status": "REJECTED"}})
    assert error_code(again) == "INVALID_TRANSITION"
    reviewer.data(DECIDE, {"id": optional["id"], "input": {"status": "REJECTED"}})

    publishing = alice.data(TRANSITION_PACKAGE, {"id": package["id"], "to": "PUBLISHING"})
    assert publishing["transitionPublishPackage"]["status"] == "PUBLISHING"
    assert (
        error_code(
            alice.gql(UPDATE_PACKAGE, {"id": package["id"], "input": {"targetPlatforms": ["X"]}})
        )
        == "CONFLICT"
    )
    wrong_platform = alice.gql(
        START_RUN, {"input": {"packageId": package["id"], "platform": "TIKTOK"}}
    )
    assert error_code(wrong_platform) == "VALIDATION"
    run = alice.data(START_RUN, {"input": {"packageId": package["id"], "platform": "IG"}})[
        "startPublishRun"
    ]
    assert run["status"] == "RUNNING" and run["packageId"] == package["id"]

    before = snapshot(neo4j_session, alice.client_id)
    no_evidence = alice.gql(FINISH_RUN, {"id": run["id"], "input": {"status": "SUCCEEDED"}})
    assert (
        error_code(no_evidence) == "VALIDATION"
        and "evidence" in no_evidence["errors"][0]["message"]
    )
    early = alice.gql(TRANSITION_PACKAGE, {"id": package["id"], "to": "PUBLISHED"})
    assert error_code(early) == "VALIDATION"
    assert snapshot(neo4j_session, alice.client_id) == before

    screenshot = os.urandom(2048)
    evidence = alice.data(
        ADD_EVIDENCE,
        {
            "input": {
                "runId": run["id"],
                "kind": "SCREENSHOT",
                "contentBase64": b64(screenshot),
                "contentType": "image/png",
            }
        },
    )["addPublishEvidence"]
    assert evidence["sha256"] == hashlib.sha256(screenshot).hexdigest() and evidence["size"] == 2048
    assert f"/runs/{run['id']}/evidence/{evidence['id']}" in evidence["uri"]
    assert stored_sha256(settings, alice, evidence["uri"]) == evidence["sha256"]
    assert rel_count(
        neo4j_session, "PublishRun", "HAS_EVIDENCE", "EvidenceArtifact", run["id"], evidence["id"]
    )

    done = alice.data(
        FINISH_RUN, {"id": run["id"], "input": {"status": "SUCCEEDED", "externalRef": "ig:1789"}}
    )
    assert (
        done["finishPublishRun"]["status"] == "SUCCEEDED" and done["finishPublishRun"]["finishedAt"]
    )
    assert (
        error_code(alice.gql(FINISH_RUN, {"id": run["id"], "input": {"status": "FAILED"}}))
        == "INVALID_TRANSITION"
    )
    published = alice.data(TRANSITION_PACKAGE, {"id": package["id"], "to": "PUBLISHED"})
    assert published["transitionPublishPackage"]["status"] == "PUBLISHED"
    assert rel_count(
        neo4j_session, "PublishPackage", "HAS_RUN", "PublishRun", package["id"], run["id"]
    )
    assert rel_count(
        neo4j_session, "PublishPackage", "INCLUDES", "AssetVariant", package["id"], variant["id"]
    )


PROMPT_READ = """query($id: ID!, $ids: [ID!]) {
  promptArtifact(id: $id) { promptText promptTextUrl generatedAssets { id } }
  promptArtifacts(where: {ids: $ids}) { nodes { id promptText } }
}"""
CREATE_PROMPT_RELATED = """mutation($input: CreatePromptArtifactInput!) {
  createPromptArtifact(input: $input) { id promptText generatedAssets { title } }
}"""
CREATE_VARIANT_RELATED = """mutation($input: CreateAssetVariantInput!) {
  createAssetVariant(input: $input) {
    deduplicated
    variant { id asset { id title } approvals { id } }
    again: variant { checksum }
  }
}"""


def test_prompt_text_is_readable_without_selecting_its_uri(alice: Caller) -> None:
    asset = create_asset(alice, title="Prompted reel")
    text = "Describe the spring offer in one line."
    fields = {"taskClass": "LLM_CREATOR", "provider": "p", "model": "m", "promptText": text}
    created = alice.data(
        CREATE_PROMPT_RELATED, {"input": fields | {"outputRefs": {"assetIds": [asset["id"]]}}}
    )["createPromptArtifact"]
    assert created["promptText"] == text
    assert created["generatedAssets"] == [{"title": "Prompted reel"}]
    read = alice.data(PROMPT_READ, {"id": created["id"], "ids": [created["id"]]})
    one = read["promptArtifact"]
    assert one["promptText"] == text and httpx.get(one["promptTextUrl"]).text == text
    assert one["generatedAssets"] == [{"id": asset["id"]}]
    assert read["promptArtifacts"]["nodes"] == [{"id": created["id"], "promptText": text}]


def test_mutation_result_can_select_relationships(alice: Caller) -> None:
    asset = create_asset(alice, title="Related reel")
    fields = {"assetId": asset["id"], "platform": "IG", "format": "REEL", "checksum": "rel-1"}
    for deduplicated in (False, True):
        payload = alice.data(CREATE_VARIANT_RELATED, {"input": fields})["createAssetVariant"]
        assert payload["deduplicated"] is deduplicated
        assert payload["variant"]["asset"] == {"id": asset["id"], "title": "Related reel"}
        assert payload["variant"]["approvals"] == [] and payload["again"]["checksum"] == "rel-1"
    moved = alice.data(
        "mutation($id: ID!) { transitionAsset(id: $id, to: GENERATED) "
        "{ status variants { checksum asset { title } } } }",
        {"id": asset["id"]},
    )["transitionAsset"]
    assert moved == {
        "status": "GENERATED",
        "variants": [{"checksum": "rel-1", "asset": {"title": "Related reel"}}],
    }


def test_status_machines_and_updates(alice: Caller, neo4j_session: Any) -> None:
    asset = create_asset(alice)
    for status in ["GENERATED", "EDITED", "APPROVED", "PUBLISHED", "RETIRED"]:
        assert (
            alice.data(TRANSITION_ASSET, {"id": asset["id"], "to": status})["transitionAsset"][
                "status"
            ]
            == status
        )
    variant = create_variant(alice, asset["id"], checksum="sha256:abc")
    for status in ["FAILED", "PENDING", "READY", "APPROVED", "PUBLISHED"]:
        result = alice.data(TRANSITION_VARIANT, {"id": variant["id"], "to": status})
        assert result["transitionAssetVariant"]["status"] == status
    updated = alice.data(
        UPDATE_VARIANT,
        {"id": variant["id"], "input": {"durationSeconds": 0, "dimensions": {"w": 1}}},
    )
    assert updated["updateAssetVariant"]["durationSeconds"] == 0 and updated["updateAssetVariant"][
        "dimensions"
    ] == {"w": 1}
    renamed = alice.data(
        UPDATE_ASSET, {"id": asset["id"], "input": {"title": "New", "summary": None}}
    )
    assert renamed["updateAsset"]["title"] == "New" and renamed["updateAsset"]["summary"] is None

    before = snapshot(neo4j_session, alice.client_id)
    for query, variables in [
        (TRANSITION_ASSET, {"id": asset["id"], "to": "DRAFT"}),
        (TRANSITION_VARIANT, {"id": variant["id"], "to": "FAILED"}),
    ]:
        body = alice.gql(query, variables)
        assert (
            error_code(body) == "INVALID_TRANSITION"
            and "allowed next statuses" in body["errors"][0]["message"]
        )
    assert snapshot(neo4j_session, alice.client_id) == before
    fresh = create_asset(alice)
    skipped = alice.gql(TRANSITION_ASSET, {"id": fresh["id"], "to": "PUBLISHED"})
    assert "allowed next statuses: generated, retired" in skipped["errors"][0]["message"]


def test_duplicate_checksum_returns_the_existing_variant(
    alice: Caller, bob: Caller, neo4j_session: Any
) -> None:
    first_asset, second_asset = create_asset(alice), create_asset(alice)
    media = os.urandom(1024)
    original = create_variant(alice, first_asset["id"], contentBase64=b64(media))
    again = create_variant(alice, second_asset["id"], contentBase64=b64(media), platform="X")
    assert again["id"] == original["id"] and again["deduplicated"] is True
    assert again["assetId"] == first_asset["id"] and again["platform"] == "IG"
    explicit = create_variant(alice, first_asset["id"], checksum=original["checksum"])
    assert explicit["id"] == original["id"] and explicit["deduplicated"]
    theirs = create_variant(bob, create_asset(bob)["id"], contentBase64=b64(media))
    assert theirs["id"] != original["id"] and not theirs["deduplicated"]

    # Racing creates of one new checksum: one node, every answer names it.
    racing = os.urandom(512)
    with concurrent.futures.ThreadPoolExecutor(max_workers=6) as pool:
        results = list(
            pool.map(
                lambda _: create_variant(alice, first_asset["id"], contentBase64=b64(racing)),
                range(6),
            )
        )
    assert len({r["id"] for r in results}) == 1
    assert sum(not r["deduplicated"] for r in results) == 1
    checksum = hashlib.sha256(racing).hexdigest()
    assert (
        count(
            neo4j_session,
            "MATCH (v:AssetVariant {client_id: $c, checksum: $s}) RETURN count(v)",
            c=alice.client_id,
            s=checksum,
        )
        == 1
    )


def test_rejected_inputs_change_nothing(alice: Caller, neo4j_session: Any) -> None:
    plan_id = create_plan(alice)
    asset = create_asset(alice)
    variant = create_variant(alice, asset["id"], checksum="c-1")
    pkg = {"planId": plan_id, "variantIds": [variant["id"]], "targetPlatforms": ["IG"]}
    package = alice.data(CREATE_PACKAGE, {"input": pkg})["createPublishPackage"]
    nowhere = f"s3://agentmem/client/{alice.client_id}/nothing/here"
    new_asset = {"assetType": "REEL", "title": "t", "createdBy": "AGENT"}
    new_variant = {"assetId": asset["id"], "platform": "IG", "format": "REEL", "checksum": "c-2"}
    new_prompt = {"taskClass": "LLM_CREATOR", "provider": "p", "model": "m", "promptText": "x"}
    approval = {"requiredByPolicy": True}
    evidence = {"runId": MISSING_ID, "kind": "LOG", "contentBase64": b64(b"log")}
    both = {"assetId": asset["id"], "variantId": variant["id"]}
    cases: list[tuple[str, dict[str, Any], str]] = [
        (CREATE_ASSET, new_asset | {"title": " "}, "VALIDATION"),
        (CREATE_ASSET, new_asset | {"sourceBlueprintInstanceId": MISSING_ID}, "NOT_FOUND"),
        (CREATE_ASSET, new_asset | {"sourceBlueprintInstanceId": "nope"}, "VALIDATION"),
        (CREATE_ASSET, new_asset | {"primaryArtifactUri": nowhere}, "NOT_FOUND"),
        (CREATE_VARIANT, new_variant | {"checksum": None}, "VALIDATION"),
        (CREATE_VARIANT, new_variant | {"dimensions": {"w": -1}}, "VALIDATION"),
        (CREATE_VARIANT, new_variant | {"dimensions": [1080]}, "VALIDATION"),
        (CREATE_VARIANT, new_variant | {"durationSeconds": -1}, "VALIDATION"),
        (CREATE_VARIANT, new_variant | {"contentBase64": "not base64!"}, "VALIDATION"),
        (CREATE_VARIANT, new_variant | {"contentBase64": "eA==", "contentType": "?"}, "VALIDATION"),
        (CREATE_VARIANT, new_variant | {"artifactUri": nowhere}, "NOT_FOUND"),
        (CREATE_VARIANT, new_variant | {"assetId": MISSING_ID}, "NOT_FOUND"),
        (CREATE_PROMPT, new_prompt | {"promptText": "  "}, "VALIDATION"),
        (CREATE_PROMPT, new_prompt | {"params": [1, 2]}, "VALIDATION"),
        (CREATE_PROMPT, new_prompt | {"outputRefs": {"variantIds": [MISSING_ID]}}, "NOT_FOUND"),
        (CREATE_APPROVAL, approval, "VALIDATION"),
        (CREATE_APPROVAL, approval | both, "VALIDATION"),
        (CREATE_APPROVAL, approval | {"assetId": MISSING_ID, "contentBase64": "ZQ=="}, "NOT_FOUND"),
        (CREATE_PACKAGE, pkg | {"variantIds": []}, "VALIDATION"),
        (CREATE_PACKAGE, pkg | {"targetPlatforms": []}, "VALIDATION"),
        (CREATE_PACKAGE, pkg | {"variantIds": [variant["id"], MISSING_ID]}, "NOT_FOUND"),
        (CREATE_PACKAGE, pkg | {"planId": MISSING_ID}, "NOT_FOUND"),
        (CREATE_PACKAGE, pkg | {"scheduledAt": "2026-02-01T10:00:00"}, "VALIDATION"),
        (START_RUN, {"packageId": package["id"], "platform": "IG"}, "CONFLICT"),
        (ADD_EVIDENCE, evidence, "NOT_FOUND"),
    ]
    changes: list[tuple[str, dict[str, Any], str]] = [
        (UPDATE_ASSET, {"id": asset["id"], "input": {"title": None}}, "VALIDATION"),
        (UPDATE_ASSET, {"id": asset["id"], "input": {"summary": "s" * 2001}}, "VALIDATION"),
        (UPDATE_VARIANT, {"id": variant["id"], "input": {"durationSeconds": -5}}, "VALIDATION"),
        (TRANSITION_PACKAGE, {"id": package["id"], "to": "SCHEDULED"}, "VALIDATION"),
        (TRANSITION_PACKAGE, {"id": package["id"], "to": "PUBLISHED"}, "INVALID_TRANSITION"),
    ]
    before = snapshot(neo4j_session, alice.client_id)
    for query, fields, code in cases:
        assert error_code(alice.gql(query, {"input": fields})) == code, fields
    for query, variables, code in changes:
        assert error_code(alice.gql(query, variables)) == code, variables
    assert snapshot(neo4j_session, alice.client_id) == before
    when = {"scheduledAt": "2026-02-01T10:00:00Z"}
    scheduled = alice.data(UPDATE_PACKAGE, {"id": package["id"], "input": when})
    assert scheduled["updatePublishPackage"]["scheduledAt"].startswith("2026-02-01T10:00:00")
    moved = alice.data(TRANSITION_PACKAGE, {"id": package["id"], "to": "SCHEDULED"})
    assert moved["transitionPublishPackage"]["status"] == "SCHEDULED"
    unscheduled = alice.gql(UPDATE_PACKAGE, {"id": package["id"], "input": {"scheduledAt": None}})
    assert error_code(unscheduled) == "VALIDATION"


def test_failed_upload_leaves_no_node(
    settings: Settings, alice: Caller, neo4j_session: Any
) -> None:
    """A real S3 failure (the bucket does not exist): the error surfaces, nothing is written."""
    from minio.error import S3Error
    from neo4j import AsyncGraphDatabase

    from app.domain.assets import approvals, prompts, variants
    from app.graph.executor import GraphExecutor

    asset = create_asset(alice)
    broken = store_for(settings, bucket=f"agentmem-missing-{os.urandom(4).hex()}")
    principal = principal_of(alice)
    before = snapshot(neo4j_session, alice.client_id)

    async def attempts() -> list[Exception]:
        auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
        async with AsyncGraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
            graph = GraphExecutor(driver, database=settings.neo4j_database)
            calls = [
                variants.create_variant(
                    graph,
                    broken,
                    principal=principal,
                    asset_id=asset["id"],
                    fields={"platform": "ig", "format": "reel"},
                    media=b"media",
                ),
                prompts.create_prompt(
                    graph,
                    broken,
                    principal=principal,
                    fields={
                        "task_class": "llm.creator",
                        "provider": "p",
                        "model": "m",
                        "output_refs": {"asset_ids": [asset["id"]]},
                    },
                    prompt_text="hello",
                ),
                approvals.create_approval(
                    graph,
                    broken,
                    principal=principal,
                    fields={"asset_id": asset["id"], "required_by_policy": True},
                    evidence=b"proof",
                ),
            ]
            return [result for result in await asyncio.gather(*calls, return_exceptions=True)]

    results = asyncio.run(attempts())
    assert all(isinstance(r, S3Error) and r.code == "NoSuchBucket" for r in results), results
    assert snapshot(neo4j_session, alice.client_id) == before
    invalid = alice.gql(
        CREATE_VARIANT,
        {
            "input": {
                "assetId": asset["id"],
                "platform": "IG",
                "format": "REEL",
                "contentBase64": "@@@@",
            }
        },
    )
    assert error_code(invalid) == "VALIDATION"
    assert snapshot(neo4j_session, alice.client_id) == before


def test_other_client_cannot_see_or_use_ids_or_artifacts(
    settings: Settings, alice: Caller, bob: Caller, neo4j_session: Any
) -> None:
    plan_id = create_plan(alice)
    node_id = create_plan_node(neo4j_session, alice, plan_id)
    asset = create_asset(alice, sourceBlueprintInstanceId=node_id)
    variant = create_variant(alice, asset["id"], contentBase64=b64(b"alice media"))
    approval = alice.data(
        CREATE_APPROVAL, {"input": {"variantId": variant["id"], "requiredByPolicy": True}}
    )["createApprovalRecord"]
    pkg = {"planId": plan_id, "variantIds": [variant["id"]], "targetPlatforms": ["IG"]}
    package = alice.data(CREATE_PACKAGE, {"input": pkg})["createPublishPackage"]
    admin = same_client_caller(settings, neo4j_session, alice, Role.ADMIN)
    admin.data(DECIDE, {"id": approval["id"], "input": {"status": "APPROVED"}})
    alice.data(TRANSITION_PACKAGE, {"id": package["id"], "to": "PUBLISHING"})
    run = alice.data(START_RUN, {"input": {"packageId": package["id"], "platform": "IG"}})
    run_id = run["startPublishRun"]["id"]
    bob_reviewer = same_client_caller(settings, neo4j_session, bob, Role.REVIEWER)
    bob_plan = create_plan(bob)
    bob_asset = create_asset(bob)
    bob_variant = create_variant(bob, bob_asset["id"], checksum="bob-1")
    alice_before = snapshot(neo4j_session, alice.client_id)
    bob_before = snapshot(neo4j_session, bob.client_id)

    new_asset = {"assetType": "REEL", "title": "t", "createdBy": "AGENT"}
    new_prompt = {"taskClass": "LLM_CREATOR", "provider": "p", "model": "m", "promptText": "x"}
    bob_pkg = {"planId": bob_plan, "variantIds": [bob_variant["id"]], "targetPlatforms": ["IG"]}
    uses: list[tuple[Caller, str, str, Callable[[str], dict[str, Any]]]] = [
        (
            bob,
            CREATE_ASSET,
            node_id,
            lambda x: {"input": new_asset | {"sourceBlueprintInstanceId": x}},
        ),
        (bob, UPDATE_ASSET, asset["id"], lambda x: {"id": x, "input": {"title": "stolen"}}),
        (bob, TRANSITION_ASSET, asset["id"], lambda x: {"id": x, "to": "GENERATED"}),
        (
            bob,
            CREATE_VARIANT,
            asset["id"],
            lambda x: {
                "input": {"assetId": x, "platform": "IG", "format": "REEL", "checksum": "b2"}
            },
        ),
        (
            bob,
            UPDATE_VARIANT,
            variant["id"],
            lambda x: {"id": x, "input": {"captionText": "stolen"}},
        ),
        (bob, TRANSITION_VARIANT, variant["id"], lambda x: {"id": x, "to": "READY"}),
        (
            bob,
            CREATE_PROMPT,
            asset["id"],
            lambda x: {"input": new_prompt | {"outputRefs": {"assetIds": [x]}}},
        ),
        (
            bob,
            CREATE_PROMPT,
            variant["id"],
            lambda x: {"input": new_prompt | {"outputRefs": {"variantIds": [x]}}},
        ),
        (
            bob,
            CREATE_APPROVAL,
            variant["id"],
            lambda x: {"input": {"variantId": x, "requiredByPolicy": True}},
        ),
        (
            bob,
            CREATE_APPROVAL,
            asset["id"],
            lambda x: {"input": {"assetId": x, "requiredByPolicy": False}},
        ),
        (
            bob_reviewer,
            DECIDE,
            approval["id"],
            lambda x: {"id": x, "input": {"status": "REJECTED"}},
        ),
        (bob, CREATE_PACKAGE, plan_id, lambda x: {"input": bob_pkg | {"planId": x}}),
        (bob, CREATE_PACKAGE, variant["id"], lambda x: {"input": bob_pkg | {"variantIds": [x]}}),
        (
            bob,
            UPDATE_PACKAGE,
            package["id"],
            lambda x: {"id": x, "input": {"targetPlatforms": ["X"]}},
        ),
        (bob, TRANSITION_PACKAGE, package["id"], lambda x: {"id": x, "to": "FAILED"}),
        (bob, START_RUN, package["id"], lambda x: {"input": {"packageId": x, "platform": "IG"}}),
        (bob, FINISH_RUN, run_id, lambda x: {"id": x, "input": {"status": "FAILED"}}),
        (
            bob,
            ADD_EVIDENCE,
            run_id,
            lambda x: {"input": {"runId": x, "kind": "LOG", "contentBase64": "bG9n"}},
        ),
    ]
    for caller, query, alice_id, variables in uses:
        used, absent = (
            caller.gql(query, variables(alice_id)),
            caller.gql(query, variables(MISSING_ID)),
        )
        assert error_code(used) == error_code(absent) == "NOT_FOUND", query
        assert anonymous(used, alice_id) == anonymous(absent, MISSING_ID), query
        assert used["data"] is None and absent["data"] is None

    # Alice's artifact URI is answered like a URI that does not exist, and cannot be read.
    theirs = variant["artifactUri"]
    made_up = f"s3://agentmem/client/{bob.client_id}/variants/{MISSING_ID}/media"
    stolen = bob.gql(CREATE_ASSET, {"input": new_asset | {"primaryArtifactUri": theirs}})
    invented = bob.gql(CREATE_ASSET, {"input": new_asset | {"primaryArtifactUri": made_up}})
    assert error_code(stolen) == error_code(invented) == "NOT_FOUND"
    assert anonymous(stolen, theirs) == anonymous(invented, made_up)
    store = store_for(settings)
    for read in (store.get, store.presigned_url):
        with pytest.raises(NotFound):
            asyncio.run(read(principal_of(bob), theirs))
    # Checksums are unique per client: bob's copy of the same bytes is his own variant.
    same_checksum = create_variant(bob, bob_asset["id"], checksum=variant["checksum"])
    assert not same_checksum["deduplicated"] and same_checksum["id"] != variant["id"]
    assert snapshot(neo4j_session, alice.client_id) == alice_before
    assert len(snapshot(neo4j_session, bob.client_id)) == len(bob_before) + 1


def anonymous(body: dict[str, Any], value: str) -> str:
    """The error message with the id or URI it names blanked out."""
    return str(body["errors"][0]["message"]).replace(value, "X")


def test_analyst_cannot_write(
    settings: Settings, api_url: str, alice: Caller, neo4j_session: Any
) -> None:
    analyst = same_client_caller(settings, neo4j_session, alice, Role.ANALYST)
    asset = create_asset(alice)
    before = snapshot(neo4j_session, alice.client_id)
    assert (
        error_code(
            analyst.gql(
                CREATE_ASSET, {"input": {"assetType": "COPY", "title": "t", "createdBy": "HUMAN"}}
            )
        )
        == "FORBIDDEN"
    )
    assert (
        error_code(analyst.gql(TRANSITION_ASSET, {"id": asset["id"], "to": "GENERATED"}))
        == "FORBIDDEN"
    )
    assert snapshot(neo4j_session, alice.client_id) == before


def test_required_approval_on_an_asset_gates_each_of_its_variants(
    settings: Settings, alice: Caller, neo4j_session: Any
) -> None:
    reviewer = same_client_caller(settings, neo4j_session, alice, Role.REVIEWER)
    asset = create_asset(alice)
    first = create_variant(alice, asset["id"], checksum="gate-1")
    second = create_variant(alice, asset["id"], checksum="gate-2")
    free = create_variant(alice, create_asset(alice)["id"], checksum="gate-3")
    needs = {"assetId": asset["id"], "requiredByPolicy": True}
    gate = alice.data(CREATE_APPROVAL, {"input": needs})["createApprovalRecord"]
    ids = [first["id"], second["id"], free["id"]]
    pkg = {"planId": create_plan(alice), "variantIds": ids, "targetPlatforms": ["IG"]}
    package = alice.data(CREATE_PACKAGE, {"input": pkg})["createPublishPackage"]
    move = {"id": package["id"], "to": "PUBLISHING"}
    before = snapshot(neo4j_session, alice.client_id)
    blocked = alice.gql(TRANSITION_PACKAGE, move)
    assert error_code(blocked) == "APPROVAL_REQUIRED"
    assert blocked["errors"][0]["extensions"]["variant_ids"] == sorted(ids[:2])
    assert snapshot(neo4j_session, alice.client_id) == before
    # A rejected required approval keeps blocking, even next to an approved one.
    reviewer.data(DECIDE, {"id": gate["id"], "input": {"status": "REJECTED"}})
    second_gate = alice.data(CREATE_APPROVAL, {"input": needs})["createApprovalRecord"]
    reviewer.data(DECIDE, {"id": second_gate["id"], "input": {"status": "APPROVED"}})
    assert error_code(alice.gql(TRANSITION_PACKAGE, move)) == "APPROVAL_REQUIRED"
    alone = alice.data(CREATE_PACKAGE, {"input": pkg | {"variantIds": [free["id"]]}})
    moved = alice.data(
        TRANSITION_PACKAGE, {"id": alone["createPublishPackage"]["id"], "to": "PUBLISHING"}
    )
    assert moved["transitionPublishPackage"]["status"] == "PUBLISHING"
