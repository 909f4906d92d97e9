"""Knowledge base facts are records of the versions they belong to, found by search at a
version; large content lives in object storage behind its checksum; every constraint query and
mutation is scoped to the caller's client."""

from __future__ import annotations

import io
from typing import Any

import pytest

from app.artifacts.store import open_store
from app.model.enums import Role
from app.settings import Settings
from tests.integration.conftest import Caller, new_caller
from tests.integration.constraint_helpers import CONTENT, CREATE, EDIT, create_documents, edit
from tests.integration.search_helpers import wait_indexed

pytestmark = pytest.mark.callers(role=Role.REVIEWER)

SEARCH = """query($input: SearchInput!) { search(input: $input) {
  hits { recordId record { ... on KnowledgeFact { key statement fromVersion toVersion } } } } }"""
FACTS = """query($id: ID!) { knowledgeFacts(first: 20, where: {documentId: $id},
  orderBy: CREATED_AT_ASC) { totalCount nodes { key statement status fromVersion toVersion } } }"""
VERSION = """query($id: ID!) { constraintVersion(id: $id) {
  id version content contentUri contentSha256 contentSize } }"""
V2_FACTS = [
    {"key": "warranty", "statement": "Tankless heaters carry a 10-year parts warranty."},
    {"key": "financing", "statement": "Financing is offered on installs over 2,000 dollars."},
]


def _code(body: dict[str, Any]) -> str:
    return str(body["errors"][0]["extensions"]["code"])


def _facts_at(caller: Caller, text: str, version_id: str) -> list[dict[str, Any]]:
    given = {"text": text, "recordTypes": ["KNOWLEDGE_FACT"], "k": 10}
    given["filters"] = {"kbVersionId": version_id}
    hits = caller.data(SEARCH, {"input": given})["search"]["hits"]
    return [hit["record"] for hit in hits]


def test_facts_follow_versions_and_search_finds_those_of_a_version(alice: Caller) -> None:
    kb = create_documents(alice)["KNOWLEDGE_BASE"]
    second = edit(alice, kb["id"], {"facts": V2_FACTS}, reason="warranty terms changed")
    listed = alice.data(FACTS, {"id": kb["id"]})["knowledgeFacts"]
    by_version = {(f["key"], f["fromVersion"]): f for f in listed["nodes"]}
    assert listed["totalCount"] == 4  # hours removed, warranty replaced, financing new
    assert by_version[("warranty", 1)]["status"] == "SUPERSEDED"
    assert by_version[("warranty", 1)]["toVersion"] == 2
    assert by_version[("hours", 1)]["toVersion"] == 2
    assert by_version[("warranty", 2)]["status"] == "ACTIVE"
    assert by_version[("financing", 2)]["toVersion"] is None
    wait_indexed(alice)
    old = _facts_at(alice, "how long is the heater warranty", kb["currentVersionId"])
    new = _facts_at(alice, "how long is the heater warranty", second["currentVersionId"])
    assert {f["key"] for f in old} == {"warranty", "hours"}
    assert {f["key"] for f in new} == {"warranty", "financing"}
    assert old[0]["statement"] == CONTENT["KNOWLEDGE_BASE"]["facts"][0]["statement"]
    assert new[0]["statement"] == V2_FACTS[0]["statement"]


def test_large_content_is_stored_with_its_checksum(alice: Caller, settings: Settings) -> None:
    facts = [
        {"key": f"fact-{n}", "statement": f"Fact number {n}. " * 19 + "End."} for n in range(80)
    ]
    given = {"kind": "KNOWLEDGE_BASE", "title": "Big KB", "reason": "import"}
    made = alice.data(CREATE, {"input": given | {"content": {"facts": facts}}})
    version_id = made["createConstraintDocument"]["currentVersionId"]
    version = alice.data(VERSION, {"id": version_id})["constraintVersion"]
    assert version["contentUri"].startswith("s3://") and version["contentSize"] > 16 * 1024
    assert version["content"] == {"facts": facts}
    store = open_store(settings)
    try:
        key = version["contentUri"].split("/", 3)[3]
        store.client.put_object(store.bucket, key, io.BytesIO(b"{}"), 2)
    finally:
        store.close()
    assert _code(alice.gql(VERSION, {"id": version_id})) == "CONTENT_CORRUPTED"


def test_agents_read_but_do_not_edit(alice: Caller, settings: Settings, api_url: str) -> None:
    brandkit = create_documents(alice)["BRANDKIT"]
    agent = new_caller(settings, api_url)  # another client's agent key cannot see it either
    given = {"kind": "BRANDKIT", "title": "x", "reason": "r", "content": CONTENT["BRANDKIT"]}
    assert _code(agent.gql(CREATE, {"input": given})) == "FORBIDDEN"
    edited = agent.gql(EDIT, {"id": brandkit["id"], "input": {"content": {}, "reason": "r"}})
    assert _code(edited) == "FORBIDDEN"


ISOLATED_READS = {
    "constraintDocument": "query($id: ID!) { constraintDocument(id: $id) { id } }",
    "constraintVersion": "query($id: ID!) { constraintVersion(id: $id) { id } }",
    "constraintDiff": "query($id: ID!) { constraintDiff(documentId: $id, fromVersion: 1, "
    "toVersion: 2) { changes { path } } }",
    "constraintsInForce": "query($id: ID!) { constraintsInForce(planId: $id) { frozen } }",
    "knowledgeFact": "query($id: ID!) { knowledgeFact(id: $id) { id } }",
}
FACT_IDS = "{ knowledgeFacts(first: 1) { nodes { id } } }"


def test_every_constraint_query_and_mutation_is_scoped(alice: Caller, bob: Caller) -> None:
    docs = create_documents(alice)
    brandkit = docs["BRANDKIT"]
    edit(alice, brandkit["id"], CONTENT["BRANDKIT"] | {"voice": "Bold."})
    plan = alice.data(
        """mutation { createPlan(input: {name: "P", objectiveTags: [LEADGEN],
        targetPlatforms: [IG], createdBy: HUMAN}) { id } }"""
    )["createPlan"]
    ids = {
        "constraintDocument": brandkit["id"],
        "constraintVersion": brandkit["currentVersionId"],
        "constraintDiff": brandkit["id"],
        "constraintsInForce": plan["id"],
        "knowledgeFact": alice.data(FACT_IDS)["knowledgeFacts"]["nodes"][0]["id"],
    }
    for name, query in ISOLATED_READS.items():
        assert alice.data(query, {"id": ids[name]})[name] is not None
        assert _code(bob.gql(query, {"id": ids[name]})) == "NOT_FOUND", name
    for listing in ("constraintDocuments", "constraintVersions", "knowledgeFacts"):
        assert bob.data(f"{{ {listing}(first: 5) {{ totalCount }} }}")[listing]["totalCount"] == 0
        assert alice.data(f"{{ {listing}(first: 5) {{ totalCount }} }}")[listing]["totalCount"]
    stolen = bob.gql(EDIT, {"id": brandkit["id"], "input": {"content": {}, "reason": "r"}})
    assert _code(stolen) == "NOT_FOUND"
    moved = bob.gql(
        "mutation($id: ID!) { transitionPlan(id: $id, to: REVIEWED) { id } }", {"id": plan["id"]}
    )
    assert _code(moved) == "NOT_FOUND"
    own_plan = bob.data(
        """mutation { createPlan(input: {name: "Q", objectiveTags: [LEADGEN],
        targetPlatforms: [IG], createdBy: HUMAN}) { id } }"""
    )["createPlan"]["id"]
    create_documents(bob)  # bob's own documents: alice's do not stand in the way
    bob.data(
        "mutation($id: ID!) { transitionPlan(id: $id, to: REVIEWED) { id } }", {"id": own_plan}
    )
    named = {"brandkitVersionId": brandkit["currentVersionId"]}
    refused = bob.gql(
        """mutation($id: ID!, $c: ConstraintsSnapshotInput) {
        transitionPlan(id: $id, to: APPROVED, constraints: $c) { id } }""",
        {"id": own_plan, "c": named},
    )
    assert _code(refused) == "VALIDATION"
    assert refused["errors"][0]["extensions"]["field"] == "brandkit_version_id"
    wait_indexed(bob)
    alices_kb = docs["KNOWLEDGE_BASE"]["currentVersionId"]
    assert _facts_at(bob, "warranty", alices_kb) == []
    assert {f["key"] for f in _facts_at(alice, "warranty", alices_kb)} == {"warranty", "hours"}
