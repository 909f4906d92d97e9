"""Constraint documents end to end over HTTP: immutable versions, diffs, optimistic edits,
schema errors that write nothing, approval freezing exactly the current versions, and
isolation of every query and mutation."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from app.model.enums import Role
from tests.integration.conftest import Caller
from tests.integration.constraint_helpers import CONTENT, CREATE, EDIT, create_documents, edit

pytestmark = pytest.mark.callers(role=Role.REVIEWER)

DOCUMENT = """query($id: ID!) { constraintDocument(id: $id) {
  id kind title currentVersion currentVersionId
  versions(first: 20, orderBy: CREATED_AT_ASC) {
    id version title author reason content contentSha256 }
  current { id version content } } }"""
VERSION = "query($id: ID!) { constraintVersion(id: $id) { id version content } }"
DIFF = """query($id: ID!, $a: Int!, $b: Int!) { constraintDiff(documentId: $id, fromVersion: $a,
  toVersion: $b) { fromVersion toVersion changes { path op before after } } }"""
IN_FORCE = """query($id: ID!) { constraintsInForce(planId: $id) { planStatus frozen
  snapshot { id brandkitVersionId kbVersionId } versions { id kind version content } } }"""
PLAN = """mutation { createPlan(input: {name: "Week 1", objectiveTags: [LEADGEN],
  targetPlatforms: [IG], createdBy: HUMAN}) { id } }"""
TRANSITION = """mutation($id: ID!, $to: PlanStatus!, $c: ConstraintsSnapshotInput) {
  transitionPlan(id: $id, to: $to, constraints: $c) { id status constraintsRef } }"""


def _document(caller: Caller, document_id: str) -> dict[str, Any]:
    return caller.data(DOCUMENT, {"id": document_id})["constraintDocument"]


def _code(body: dict[str, Any]) -> str:
    return body["errors"][0]["extensions"]["code"]


def test_edits_make_new_versions_and_never_rewrite_old_ones(alice: Caller) -> None:
    brandkit = create_documents(alice)["BRANDKIT"]
    first = _document(alice, brandkit["id"])
    assert first["currentVersion"] == 1 and first["versions"][0]["content"] == CONTENT["BRANDKIT"]
    changed = CONTENT["BRANDKIT"] | {"tone": ["warm", "direct"], "hashtags": ["#acme"]}
    second = edit(alice, brandkit["id"], changed, reason="add hashtags", baseVersion=1)
    assert second["currentVersion"] == 2
    document = _document(alice, brandkit["id"])
    assert [v["version"] for v in document["versions"]] == [1, 2]
    assert document["versions"][0] == first["versions"][0]  # version 1 is as it was
    assert document["versions"][1]["reason"] == "add hashtags"
    assert document["versions"][1]["author"].startswith("reviewer:")
    assert document["current"]["content"] == changed
    same = edit(alice, brandkit["id"], changed, reason="no change")
    assert same["currentVersion"] == 2  # the same content saves nothing
    diff = alice.data(DIFF, {"id": brandkit["id"], "a": 1, "b": 2})["constraintDiff"]
    assert diff["changes"] == [
        {"path": "hashtags", "op": "ADDED", "before": None, "after": ["#acme"]},
        {"path": "tone", "op": "CHANGED", "before": ["warm"], "after": ["warm", "direct"]},
    ]


def test_a_stale_edit_is_refused_and_writes_nothing(alice: Caller) -> None:
    kb = create_documents(alice)["KNOWLEDGE_BASE"]
    facts = CONTENT["KNOWLEDGE_BASE"]["facts"]
    edit(alice, kb["id"], {"facts": facts[:1]}, baseVersion=1)
    stale = alice.gql(
        """mutation($id: ID!, $input: EditConstraintDocumentInput!) {
        editConstraintDocument(id: $id, input: $input) { id } }""",
        {"id": kb["id"], "input": {"content": {"facts": []}, "reason": "x", "baseVersion": 1}},
    )
    assert _code(stale) == "CONFLICT" and "version 2" in stale["errors"][0]["message"]
    assert _document(alice, kb["id"])["currentVersion"] == 2
    # The edit that made version 2, sent again (a retry): it saves nothing and is no conflict.
    again = edit(alice, kb["id"], {"facts": facts[:1]}, baseVersion=1)
    assert again["currentVersion"] == 2
    renamed = edit(alice, kb["id"], {"facts": facts[:1]}, baseVersion=2, title=" Facts ")
    assert renamed["currentVersion"] == 3
    titles = [v["title"] for v in _document(alice, kb["id"])["versions"]]
    assert titles == ["Knowledge_Base document"] * 2 + ["Facts"]  # each version keeps its own


def test_schema_violations_are_typed_and_write_nothing(alice: Caller) -> None:
    bad = {"kind": "BRANDKIT", "title": "x", "reason": "r", "content": {"name": "A", "colour": 1}}
    body = alice.gql(CREATE, {"input": bad})
    assert _code(body) == "VALIDATION"
    assert body["errors"][0]["extensions"]["field"] == "content.colour"
    facts = {"facts": [{"key": "a", "statement": "x"}, {"key": "a", "statement": "y"}]}
    body = alice.gql(CREATE, {"input": bad | {"kind": "KNOWLEDGE_BASE", "content": facts}})
    assert body["errors"][0]["extensions"]["field"] == "content.facts[1].key"
    listed = alice.data("{ constraintDocuments(first: 10) { totalCount } }")
    assert listed["constraintDocuments"]["totalCount"] == 0
    kb = create_documents(alice)["KNOWLEDGE_BASE"]
    wrong = {"content": {"facts": [{"key": "k", "statement": ""}]}, "reason": "r"}
    body = alice.gql(
        """mutation($id: ID!, $input: EditConstraintDocumentInput!) {
        editConstraintDocument(id: $id, input: $input) { id } }""",
        {"id": kb["id"], "input": wrong},
    )
    assert body["errors"][0]["extensions"]["field"] == "content.facts[0].statement"
    assert _document(alice, kb["id"])["currentVersion"] == 1
    second = alice.gql(CREATE, {"input": {**bad, "content": CONTENT["BRANDKIT"]}})
    assert _code(second) == "CONFLICT"  # one document per kind and client


def test_approval_freezes_exactly_the_current_versions(alice: Caller) -> None:
    docs = create_documents(alice)
    plan = alice.data(PLAN)["createPlan"]
    before = alice.data(IN_FORCE, {"id": plan["id"]})["constraintsInForce"]
    assert before["frozen"] is False and before["snapshot"] is None
    brandkit = docs["BRANDKIT"]
    edited = edit(alice, brandkit["id"], CONTENT["BRANDKIT"] | {"voice": "Bold."})
    alice.data(TRANSITION, {"id": plan["id"], "to": "REVIEWED"})
    alice.data(TRANSITION, {"id": plan["id"], "to": "APPROVED"})
    frozen = alice.data(IN_FORCE, {"id": plan["id"]})["constraintsInForce"]
    assert frozen["frozen"] is True and frozen["planStatus"] == "APPROVED"
    versions = {v["kind"]: v for v in frozen["versions"]}
    assert versions["BRANDKIT"]["id"] == edited["currentVersionId"]
    assert frozen["snapshot"]["brandkitVersionId"] == edited["currentVersionId"]
    assert {v["id"] for k, v in versions.items() if k != "BRANDKIT"} == {
        docs[k]["currentVersionId"] for k in docs if k != "BRANDKIT"
    }
    edit(alice, brandkit["id"], CONTENT["BRANDKIT"] | {"voice": "Later."})
    later = alice.data(IN_FORCE, {"id": plan["id"]})["constraintsInForce"]
    assert later["versions"] == frozen["versions"]
    assert {v["kind"]: v for v in later["versions"]}["BRANDKIT"]["content"]["voice"] == "Bold."


def _race(caller: Caller, document: str, variables: list[dict[str, Any]]) -> list[str]:
    """The same kind of request sent at once; each answer's error code, OK when none."""
    with ThreadPoolExecutor(max_workers=len(variables)) as pool:
        answers = list(pool.map(lambda given: caller.gql(document, given), variables))
    return sorted(_code(a) if a.get("errors") else "OK" for a in answers)


def test_racing_edits_and_creates_make_one_version_each(alice: Caller, bob: Caller) -> None:
    brandkit = create_documents(alice)["BRANDKIT"]
    edits = [
        {
            "id": brandkit["id"],
            "input": {
                "content": CONTENT["BRANDKIT"] | {"voice": f"Voice {n}."},
                "reason": f"edit {n}",
                "baseVersion": 1,
            },
        }
        for n in range(4)
    ]
    assert _race(alice, EDIT, edits) == ["CONFLICT", "CONFLICT", "CONFLICT", "OK"]
    assert [v["version"] for v in _document(alice, brandkit["id"])["versions"]] == [1, 2]
    given = {"kind": "BRANDKIT", "title": "t", "reason": "r", "content": CONTENT["BRANDKIT"]}
    assert _race(bob, CREATE, [{"input": given}] * 3) == ["CONFLICT", "CONFLICT", "OK"]
    listed = bob.data("{ constraintDocuments(first: 5) { totalCount } }")
    assert listed["constraintDocuments"]["totalCount"] == 1
