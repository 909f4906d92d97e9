"""User profiles and erasing a subject (seed 004) over real HTTP, Neo4j and S3: profile data,
preferences and the active flag; eraseSubject removes every memory, session, artifact and
stored object about one subject of one client, with counts, and nothing else."""

from __future__ import annotations

import base64
import json
import uuid
from typing import Any

import pytest
from minio import Minio

from app.artifacts.store import make_client
from app.model.enums import Role
from app.settings import Settings
from tests.integration.client_helpers import client_state
from tests.integration.conftest import Caller
from tests.integration.memory_helpers import error_of, log_entries, remember, team
from tests.integration.session_helpers import ATTACH, END, put, start

pytestmark = pytest.mark.callers(role=Role.REVIEWER)

PROFILE = "id externalRef displayName profile preferences active createdAt updatedAt"
UPSERT = f"""mutation($input: SubjectInput!) {{ upsertSubject(input: $input) {{ {PROFILE} }} }}"""
BY_REF = f"query($ref: String!) {{ subjectByRef(externalRef: $ref) {{ {PROFILE} }} }}"
BY_ID = f"query($id: ID!) {{ memorySubject(id: $id) {{ {PROFILE} }} }}"
LISTED = "{ memorySubjects(first: 50) { totalCount nodes { externalRef active preferences } } }"
ERASE = """mutation($s: String!) { eraseSubject(subject: $s) {
  subject subjects records versions artifacts sessions agentStates objects accessLogEntries } }"""
SET_REL = """mutation($s: String!) {
  setRelationship(input: {subject: $s, agentName: "brad", type: "friend"}) { type } }"""
ATTACH_RECORD = """mutation($id: ID!, $b64: String!) {
  attachMemoryArtifact(recordId: $id, kind: "notes", contentBase64: $b64) { id uri } }"""
LINK = """mutation($f: ID!, $t: ID!) {
  linkRecords(fromId: $f, toId: $t, relation: REFERENCE) { linkId } }"""
RECALL = "query($id: ID!) { recallMemory(id: $id) { id text } }"
COUNTS = ("subjects", "records", "versions", "artifacts", "sessions", "agentStates", "objects")
SAVE_STATE = """mutation($sid: ID!, $state: JSON!) {
  saveAgentSessionState(sessionId: $sid, agentName: "brad", state: $state) { version } }"""
NOTHING = dict.fromkeys((*COUNTS, "accessLogEntries"), 0)
# Every node of a client (the access log apart) with its properties, and its relationships'.
NODES = """
MATCH (n {client_id: $c}) WHERE NOT n:AccessLogEntry
RETURN labels(n) AS labels, properties(n) AS props,
       [(n)-[r]-() | properties(r)] AS rels
"""


def test_profiles_hold_profile_data_preferences_and_an_active_flag(
    alice: Caller, bob: Caller
) -> None:
    ref = f"ada-{uuid.uuid4().hex[:6]}"
    made = alice.data(
        UPSERT,
        {"input": {"externalRef": ref, "profile": {"tz": "UTC"}, "preferences": {"tone": "dry"}}},
    )["upsertSubject"]
    assert (made["profile"], made["preferences"], made["active"]) == (
        {"tz": "UTC"},
        {"tone": "dry"},
        True,
    )
    same = alice.data(UPSERT, {"input": {"externalRef": ref, "preferences": {"tone": "dry"}}})
    assert same["upsertSubject"]["updatedAt"] == made["updatedAt"]  # nothing changed
    off = alice.data(UPSERT, {"input": {"externalRef": ref, "active": False}})["upsertSubject"]
    assert (off["id"], off["active"], off["preferences"]) == (made["id"], False, {"tone": "dry"})
    assert off["updatedAt"] > made["updatedAt"]
    moved = {"externalRef": ref, "preferences": {"tone": "warm", "units": ["metric"]}}
    changed = alice.data(UPSERT, {"input": moved})["upsertSubject"]
    assert changed["preferences"] == {"tone": "warm", "units": ["metric"]}
    assert changed["profile"] == {"tz": "UTC"} and changed["active"] is False  # left out: kept
    assert alice.data(BY_REF, {"ref": ref})["subjectByRef"] == changed
    assert alice.data(BY_ID, {"id": made["id"]})["memorySubject"] == changed
    nodes = alice.data(LISTED)["memorySubjects"]["nodes"]
    assert nodes == [{"externalRef": ref, "active": False, "preferences": changed["preferences"]}]

    for bad, field in (({"preferences": [1]}, "preferences"), ({"profile": "x"}, "profile")):
        refused = error_of(alice.gql(UPSERT, {"input": {"externalRef": ref, **bad}}))
        assert (refused["code"], refused["field"]) == ("VALIDATION", field)
    # Another client's subject is a missing one.
    assert error_of(bob.gql(BY_REF, {"ref": ref}))["code"] == "NOT_FOUND"
    assert error_of(bob.gql(BY_ID, {"id": made["id"]}))["code"] == "NOT_FOUND"
    assert bob.data(LISTED)["memorySubjects"]["totalCount"] == 0


def _mentions(session: Any, client_id: str, text: str) -> list[Any]:
    """The client's nodes any of whose (or whose relationships') values mention `text`."""
    rows = session.run(NODES, c=client_id).data()
    return [row["labels"] for row in rows if text in json.dumps(row, default=str)]


def _about(caller: Caller, ref: str, other_record: str, s3: Minio, bucket: str) -> list[str]:
    """Everything a client can hold about `ref`; the object keys it stored."""
    caller.data(UPSERT, {"input": {"externalRef": ref, "profile": {"name": f"{ref} Lovelace"}}})
    caller.data(SET_REL, {"s": ref})
    big = {"diary": [f"{ref} entry {i}: " + "words " * 30 for i in range(60)]}
    ns = {"subject": ref, "agent": "brad"}
    record = remember(caller, namespace=ns, key="diary", text=f"{ref} diary", content=big)
    second = big | {"v": 2}
    again = remember(caller, namespace=ns, key="diary", text=f"{ref} diary, v2", content=second)
    note = remember(caller, namespace={"subject": ref}, text=f"{ref} likes tea")
    b64 = base64.b64encode(f"{ref} notes".encode()).decode()
    attached = caller.data(ATTACH_RECORD, {"id": note["id"], "b64": b64})["attachMemoryArtifact"]
    caller.data(LINK, {"f": note["id"], "t": other_record})
    session = start(caller, subject=ref)
    put(caller, session["id"], f"{ref}: hello")
    put(caller, session["id"], None, content={"said": [f"{ref} " + "x" * 90] * 100})
    transcript = {"sessionId": session["id"], "text": f"{ref}: hello\nbrad: hi"}
    caller.data(ATTACH, {"input": transcript})
    caller.data(SAVE_STATE, {"sid": session["id"], "state": {"mood": f"{ref} is happy"}})
    caller.data(END, {"id": session["id"], "summary": f"{ref} said hello"})
    prefix = f"s3://{bucket}/"
    uris = {record["contentUri"], again["contentUri"], attached["uri"]}
    uris |= {u for u in _session_uris(caller, session["id"]) if u}
    keys = [u.removeprefix(prefix) for u in uris]
    assert len(keys) == 5 and all(s3.stat_object(bucket, key) for key in keys)
    return keys


def _session_uris(caller: Caller, session_id: str) -> list[str]:
    query = """query($id: ID!) { memorySession(id: $id) {
      artifacts { uri } entries(first: 50) { contentUri } } }"""
    found = caller.data(query, {"id": session_id})["memorySession"]
    return [a["uri"] for a in found["artifacts"]] + [e["contentUri"] for e in found["entries"]]


def test_erasing_a_subject_leaves_nothing_about_it_and_touches_nothing_else(
    settings: Settings, api_url: str, bob: Caller, neo4j_session: Any
) -> None:
    s3, bucket = make_client(settings), settings.s3_bucket
    callers = team(settings, api_url, Role.REVIEWER, Role.AGENT, Role.ADMIN)
    alice, agent, admin = callers[Role.REVIEWER], callers[Role.AGENT], callers[Role.ADMIN]
    ref, other = f"ada-{uuid.uuid4().hex[:6]}", f"cy-{uuid.uuid4().hex[:6]}"
    kept = remember(alice, namespace={"subject": other}, key="k", text=f"{other} keeps this")
    unowned = remember(alice, text="about nobody")
    keys = _about(alice, ref, kept["id"], s3, bucket)
    bob_kept = remember(bob, text="bob's own")
    bob_keys = _about(bob, ref, bob_kept["id"], s3, bucket)  # the same ref in another client
    bob_before = client_state(neo4j_session, bob.client_id)
    assert _mentions(neo4j_session, alice.client_id, ref)

    assert error_of(agent.gql(ERASE, {"s": ref}))["code"] == "FORBIDDEN"
    refused = error_of(alice.gql(ERASE, {"s": " "}))
    assert (refused["code"], refused["field"]) == ("VALIDATION", "subject")
    erased = alice.data(ERASE, {"s": ref})["eraseSubject"]
    # The diary (2 versions), the note, 2 session entries and the session's summary; objects:
    # the diary's 2 contents, the note's attachment, the transcript, a long entry's content.
    counts = {"subjects": 1, "records": 5, "versions": 1, "artifacts": 2, "sessions": 1}
    counts |= {"agentStates": 1}
    assert {k: erased[k] for k in COUNTS} == counts | {"objects": 5}
    assert erased["subject"] == ref
    assert erased["accessLogEntries"] >= 9  # the writes of what was erased
    assert _mentions(neo4j_session, alice.client_id, ref) == []
    for key in keys:
        assert not list(s3.list_objects(bucket, prefix=key)), key
    # Other subjects, records about no one, links' other ends and other clients are untouched.
    for record in (kept, unowned):
        assert alice.data(RECALL, {"id": record["id"]})["recallMemory"]["text"] == record["text"]
    assert client_state(neo4j_session, bob.client_id) == bob_before
    assert all(s3.stat_object(bucket, key) for key in bob_keys)

    # The log keeps who erased, and the rows about erased records without their data.
    entries = log_entries(admin)
    erase = [(e["role"], e["outcome"]) for e in entries if e["operation"] == "erase"]
    assert erase == [("reviewer", "OK"), ("reviewer", "REJECTED"), ("agent", "REJECTED")]
    done = next(e for e in entries if e["operation"] == "erase" and e["outcome"] == "OK")
    assert done["detail"].startswith("1 subject, 5 records, 1 versions, 2 artifacts")
    assert (
        sum(e["detail"] == "erased" and e["targetId"] is None for e in entries)
        == (erased["accessLogEntries"])
    )
    assert not [e for e in entries if e["operation"] != "erase" and ref in json.dumps(e)]

    again = alice.data(ERASE, {"s": ref})["eraseSubject"]  # repeatable: nothing left
    assert again == {"subject": ref} | NOTHING
    assert client_state(neo4j_session, bob.client_id) == bob_before


def test_another_clients_subject_is_a_missing_one(
    settings: Settings, alice: Caller, bob: Caller, neo4j_session: Any
) -> None:
    s3 = make_client(settings)
    ref = f"ada-{uuid.uuid4().hex[:6]}"
    other = remember(alice, text="another record")
    keys = _about(alice, ref, other["id"], s3, settings.s3_bucket)
    before = client_state(neo4j_session, alice.client_id)
    assert bob.data(ERASE, {"s": ref})["eraseSubject"] == {"subject": ref} | NOTHING
    assert error_of(alice.gql(ERASE, {"s": "x" * 201}))["code"] == "VALIDATION"
    assert client_state(neo4j_session, alice.client_id) == before
    assert all(s3.stat_object(settings.s3_bucket, key) for key in keys)
