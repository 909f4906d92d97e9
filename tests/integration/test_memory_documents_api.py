"""Semantic documents, procedures and memory search over HTTP (issue 6)."""

from __future__ import annotations

from typing import Any

import pytest

from app.model.enums import Role
from tests.integration.conftest import Caller
from tests.integration.memory_helpers import error_of, remember
from tests.integration.search_helpers import wait_indexed

DOC = "id key kind namespace text content version active"
PUT_DOC = f"""mutation($oid: String!, $doc: JSON!, $subject: String) {{
  putSemanticDocument(objectId: $oid, document: $doc, subject: $subject) {{ {DOC} }} }}"""
GET_DOC = f"""query($oid: String!, $subject: String) {{
  semanticDocument(objectId: $oid, subject: $subject) {{ {DOC} }} }}"""
DELETE_DOC = """mutation($oid: String!, $subject: String, $hard: Boolean! = false) {
  deleteSemanticDocument(objectId: $oid, subject: $subject, hard: $hard) { id hard } }"""
PUT_PROC = f"""mutation($input: ProcedureInput!) {{ putProcedure(input: $input) {{
  {DOC} procedureType }} }}"""
GET_PROC = f"""query($agent: String!, $name: String!) {{
  procedure(agent: $agent, name: $name) {{ {DOC} procedureType }} }}"""
PROCS = """query($agent: String!, $type: ProcedureType) {
  procedures(agent: $agent, procedureType: $type) { totalCount nodes { key procedureType } } }"""
PROC_HISTORY = """query($agent: String!, $name: String!) {
  procedureHistory(agent: $agent, name: $name) {
    record { version text } versions { version text procedureType } } }"""
SEARCH = """query($text: String!, $mode: SearchMode!, $where: MemoryWhere, $k: Int! = 10) {
  searchMemories(text: $text, mode: $mode, where: $where, k: $k) {
    score why record { id key kind namespace text } } }"""
SEARCH_RELATED = """query($text: String!) {
  searchMemories(text: $text, mode: KEYWORD) { record { key artifacts { kind } } } }"""
ATTACH_NOTE = """mutation($id: ID!) {
  attachMemoryArtifact(recordId: $id, kind: "notes", contentBase64: "aGk=") { id } }"""
SEARCH_PROCS = """query($agent: String!, $text: String!) {
  searchProcedures(agent: $agent, text: $text, mode: KEYWORD) { record { key } } }"""


# Reviewer keys named tester: these tests write memory of agents brad, planner, ... (an agent
# key writes only its own agent's memory).
pytestmark = pytest.mark.callers(role=Role.REVIEWER)


def test_semantic_documents_by_object_id(alice: Caller, bob: Caller) -> None:
    doc = {"title": "Refund policy", "body": "Refunds within 30 days", "days": 30}
    made = alice.data(PUT_DOC, {"oid": "policy-refunds", "doc": doc})["putSemanticDocument"]
    assert made["kind"] == "SEMANTIC" and made["namespace"] == "semantic"
    assert made["text"] == "Refund policy\nRefunds within 30 days" and made["content"] == doc
    changed = {**doc, "days": 14}
    again = alice.data(PUT_DOC, {"oid": "policy-refunds", "doc": changed})["putSemanticDocument"]
    assert again["id"] == made["id"] and again["version"] == 2
    got = alice.data(GET_DOC, {"oid": "policy-refunds"})["semanticDocument"]
    assert got["content"] == changed
    assert error_of(bob.gql(GET_DOC, {"oid": "policy-refunds"}))["code"] == "NOT_FOUND"
    scoped = alice.gql(GET_DOC, {"oid": "policy-refunds", "subject": "carol"})
    assert error_of(scoped)["code"] == "NOT_FOUND"
    remember(
        alice, key="plain", text="not a document", kind="EPISODIC", namespace={"path": ["semantic"]}
    )
    assert error_of(alice.gql(GET_DOC, {"oid": "plain"}))["code"] == "NOT_FOUND"
    assert alice.data(DELETE_DOC, {"oid": "policy-refunds"})["deleteSemanticDocument"] == {
        "id": made["id"],
        "hard": False,
    }
    assert error_of(alice.gql(GET_DOC, {"oid": "policy-refunds"}))["code"] == "NOT_FOUND"


def test_procedures_per_agent_with_versions(alice: Caller) -> None:
    def put(name: str, kind: str, text: str, agent: str = "brad") -> dict[str, Any]:
        variables = {"agent": agent, "name": name, "procedureType": kind, "text": text}
        return dict(alice.data(PUT_PROC, {"input": variables})["putProcedure"])

    greet = put("greeting", "TEMPLATE", "Hey {name}!")
    assert greet["namespace"] == "agent:brad/procedures" and greet["procedureType"] == "TEMPLATE"
    put("greeting", "TEMPLATE", "Yo {name}, what's up?")
    put("refund-flow", "WORKFLOW", "1. verify 2. refund")
    put("greeting", "TEMPLATE", "Hello {name}.", agent="ann")
    got = alice.data(GET_PROC, {"agent": "brad", "name": "greeting"})["procedure"]
    assert got["text"] == "Yo {name}, what's up?" and got["version"] == 2
    history = alice.data(PROC_HISTORY, {"agent": "brad", "name": "greeting"})["procedureHistory"]
    assert [v["text"] for v in history["versions"]] == ["Hey {name}!"]
    assert history["versions"][0]["procedureType"] == "TEMPLATE"
    listed = alice.data(PROCS, {"agent": "brad"})["procedures"]
    assert listed["totalCount"] == 2
    assert alice.data(PROCS, {"agent": "brad", "type": "WORKFLOW"})["procedures"]["nodes"] == [
        {"key": "refund-flow", "procedureType": "WORKFLOW"}
    ]
    no_type = alice.gql(
        PUT_PROC,
        {
            "input": {
                "agent": "brad",
                "name": "x",
                "text": "y",
                "procedureType": "TEMPLATE",
                "priority": 42,
            }
        },
    )
    assert error_of(no_type)["field"] == "priority"


def test_search_memories_with_filters(alice: Caller, bob: Caller) -> None:
    remember(
        alice,
        key="a1",
        text="Alice loves hiking in the Alps",
        tags=["hobby"],
        namespace={"subject": "alice"},
        priority=7,
    )
    remember(
        alice,
        key="a2",
        text="Alice dislikes hiking boots",
        tags=["gear"],
        namespace={"subject": "alicia"},
        priority=2,
    )
    remember(alice, key="a3", text="quarterly revenue grew", kind="EPISODIC")
    gone = remember(alice, key="a4", text="hiking trip cancelled")
    alice.data("mutation($id: ID!) { forgetMemory(id: $id) { id } }", {"id": gone["id"]})
    remember(bob, key="b1", text="Bob goes hiking too")
    alice.data(
        "mutation($input: ProcedureInput!) { putProcedure(input: $input) { id } }",
        {
            "input": {
                "agent": "brad",
                "name": "hike-plan",
                "procedureType": "WORKFLOW",
                "text": "plan a hiking route",
            }
        },
    )
    wait_indexed(alice)
    wait_indexed(bob)
    hits = alice.data(SEARCH, {"text": "hiking", "mode": "KEYWORD"})["searchMemories"]
    assert {h["record"]["key"] for h in hits} == {"a1", "a2", "hike-plan"}
    scoped = alice.data(
        SEARCH, {"text": "hiking", "mode": "HYBRID", "where": {"namespacePrefix": "subject:alice"}}
    )
    assert [h["record"]["key"] for h in scoped["searchMemories"]] == ["a1"]
    important = alice.data(
        SEARCH,
        {"text": "hiking", "mode": "KEYWORD", "where": {"minPriority": 5, "kinds": ["SEMANTIC"]}},
    )
    assert [h["record"]["key"] for h in important["searchMemories"]] == ["a1"]
    semantic = alice.data(SEARCH, {"text": "walking in mountains", "mode": "VECTOR", "k": 1})
    assert semantic["searchMemories"][0]["record"]["key"] in {"a1", "a2", "hike-plan"}
    procs = alice.data(SEARCH_PROCS, {"agent": "brad", "text": "hiking"})["searchProcedures"]
    assert [h["record"]["key"] for h in procs] == ["hike-plan"]
    # Relationships selected under a hit's record are read too (one query for all the hits).
    a1 = next(h["record"]["id"] for h in hits if h["record"]["key"] == "a1")
    alice.data(ATTACH_NOTE, {"id": a1})
    with_related = alice.data(SEARCH_RELATED, {"text": "hiking"})["searchMemories"]
    related = {h["record"]["key"]: h["record"]["artifacts"] for h in with_related}
    assert related == {"a1": [{"kind": "notes"}], "a2": [], "hike-plan": []}
