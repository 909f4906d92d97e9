"""Personas (seed 003) end to end over HTTP, Neo4j and S3: versioned cores, the composite prompt
within its budget with the ids it used, summaries mid-session, facts learned at a session's end
and deduplicated against the subject's memory, transcript retention enforced by the sweeper,
and isolation: another client's persona, session or artifact behaves as a missing one."""

from __future__ import annotations

import asyncio
import math
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.artifacts.store import make_client
from app.model.enums import Role
from app.runtime.background import run_sweep
from app.settings import Settings
from tests.integration import session_helpers as h
from tests.integration.asset_helpers import MISSING_ID, error_code
from tests.integration.client_helpers import colleague
from tests.integration.conftest import Caller
from tests.integration.memory_helpers import error_of, remember
from tests.integration.search_helpers import search, wait_indexed

# Keys of agent brad, who speaks as persona brad (an agent key acts only as itself).
pytestmark = pytest.mark.callers(agent_name="brad")

VERSION = "id personaId version systemPrompt traits behaviouralRules contentSha256 author reason"
PERSONA = f"""id name description currentVersion currentVersionId
  versions(first: 20, orderBy: CREATED_AT_ASC) {{ {VERSION} }} current {{ id version }}"""
CREATE = (
    f"""mutation($input: CreatePersonaInput!) {{ createPersona(input: $input) {{ {PERSONA} }} }}"""
)
EDIT = f"""mutation($id: ID!, $input: EditPersonaInput!) {{
  editPersona(id: $id, input: $input) {{ {PERSONA} }} }}"""
READ = f"query($id: ID!) {{ persona(id: $id) {{ {PERSONA} }} }}"
CONTEXT = """query($s: String!, $p: String!, $b: Int! = 4000, $v: Int) {
  personaContext(subject: $s, persona: $p, tokenBudget: $b, version: $v) {
    persona { id name } version { id version } subject displayName
    relationship { type customPrompt memorySettings sessions }
    prompt tokenBudget tokensUsed omitted usedIds
    sections { section title tokens lines { text recordId tokens } } } }"""
SUMMARIZE = """mutation($id: ID!, $summary: String) { summarizeSession(id: $id, summary: $summary) {
  entriesSummarized session { id status entryCount }
  summary { id key kind version text tags sessionId summarizes(first: 50) { id } } } }"""
END_FACTS = """mutation($id: ID!, $facts: [ExtractedFactInput!]) {
  endSession(id: $id, facts: $facts) {
    session { id status learned(first: 50) { id } }
    facts { outcome record { id key text namespace version kind tags learnedIn { id } } } } }"""
SUBJECT = 'mutation { upsertSubject(input: {externalRef: "alice", displayName: "Al"}) { id } }'
RELATE = """mutation($settings: JSON) { setRelationship(input: {subject: "alice", type: "bro",
  customPrompt: "You call her dude.", memorySettings: $settings}) { type } }"""
PROCEDURE = """mutation($name: String!, $text: String!, $p: Int) { putProcedure(input: {
  agent: "brad", name: $name, procedureType: TEMPLATE, text: $text, priority: $p}) { id } }"""
CORE = {
    "name": "brad",
    "systemPrompt": "You are Brad, decisive and direct.",
    "traits": {"humor_type": "dry", "empathy": 0.7},
    "behaviouralRules": ["Always be decisive", "Give practical solutions"],
    "description": "Decisive, edgy friend who keeps it real",
}


def _create(caller: Caller, **fields: Any) -> dict[str, Any]:
    return dict(caller.data(CREATE, {"input": CORE | fields})["createPersona"])


def _edit(caller: Caller, persona_id: str, **fields: Any) -> dict[str, Any]:
    return dict(caller.data(EDIT, {"id": persona_id, "input": fields})["editPersona"])


def _context(caller: Caller, **variables: Any) -> dict[str, Any]:
    found = caller.data(CONTEXT, {"s": "alice", "p": "brad", **variables})["personaContext"]
    return dict(found)


def _lines(context: dict[str, Any], section: str) -> list[dict[str, Any]]:
    found = [s for s in context["sections"] if s["section"] == section]
    return list(found[0]["lines"]) if found else []


def test_personas_keep_every_version(alice: Caller, bob: Caller) -> None:
    made = _create(alice)
    assert (made["name"], made["currentVersion"]) == ("brad", 1)
    first = made["versions"][0]
    assert (
        first["traits"] == CORE["traits"] and first["behaviouralRules"] == CORE["behaviouralRules"]
    )
    assert (first["reason"], first["author"]) == ("first version", "agent:brad")
    second = _edit(alice, made["id"], systemPrompt="You are Brad. Blunt.", reason="blunter")
    assert second["currentVersion"] == 2 and second["current"]["version"] == 2
    assert second["versions"][0] == first  # version 1 is as it was
    assert second["versions"][1]["traits"] == CORE["traits"]  # parts not given: kept
    assert second["versions"][1]["contentSha256"] != first["contentSha256"]
    # The same core again (a retry) saves nothing; a description alone changes the persona.
    again = _edit(alice, made["id"], systemPrompt="You are Brad. Blunt.", reason="retry")
    assert again["currentVersion"] == 2
    described = _edit(alice, made["id"], description="New words", reason="describe")
    assert (described["currentVersion"], described["description"]) == (2, "New words")
    stale = alice.gql(
        EDIT, {"id": made["id"], "input": {"traits": {}, "reason": "x", "baseVersion": 1}}
    )
    assert error_code(stale) == "CONFLICT" and "version 2" in stale["errors"][0]["message"]
    assert error_code(alice.gql(CREATE, {"input": CORE})) == "CONFLICT"  # the name is taken

    # Another client: its id is a missing id, its name is free.
    assert error_code(bob.gql(READ, {"id": made["id"]})) == "NOT_FOUND"
    assert error_code(bob.gql(READ, {"id": MISSING_ID})) == "NOT_FOUND"
    foreign = bob.gql(EDIT, {"id": made["id"], "input": {"reason": "x", "traits": {}}})
    missing = bob.gql(EDIT, {"id": MISSING_ID, "input": {"reason": "x", "traits": {}}})
    assert error_code(foreign) == error_code(missing) == "NOT_FOUND"
    assert _create(bob)["id"] != made["id"]
    assert alice.data(READ, {"id": made["id"]})["persona"]["currentVersion"] == 2


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"name": "sue"}, None),  # an agent key creates only its own agent's persona
        ({"name": "bad name!"}, "name"),
        ({"systemPrompt": " "}, "system_prompt"),
        ({"traits": [1, 2]}, "traits"),
        ({"traits": {"a": {"nested": 1}}}, "traits"),
        ({"behaviouralRules": ["ok", " "]}, "behavioural_rules"),
    ],
)
def test_bad_personas_are_refused_with_the_field(
    alice: Caller, fields: dict[str, Any], field: str | None
) -> None:
    error = error_of(alice.gql(CREATE, {"input": CORE | fields}))
    assert error["code"] == ("FORBIDDEN" if field is None else "VALIDATION")
    assert error.get("field") == field
    assert alice.data("{ personas(first: 5) { totalCount } }")["personas"]["totalCount"] == 0


def _world(settings: Settings, alice: Caller, neo4j_session: Any) -> dict[str, Any]:
    """Persona brad, subject alice with a relationship, facts, procedures and sessions."""
    persona = _create(alice)
    alice.data(SUBJECT)
    alice.data(RELATE, {"settings": {"auto_recall_depth": 2}})
    about = {"subject": "alice", "agent": "brad"}
    facts = [
        remember(alice, namespace=about, key="job", text="Works at TechCorp", priority=9)["id"],
        remember(alice, namespace={"subject": "alice"}, text="Allergic to peanuts")["id"],
    ]
    sue = colleague(settings, neo4j_session, of=alice, role=Role.REVIEWER, agent="sue")
    remember(sue, namespace={"subject": "alice", "agent": "sue"}, text="Sue's secret")
    remember(alice, namespace={"subject": "alice2"}, text="Not about alice")
    procedures = [
        alice.data(PROCEDURE, {"name": "greeting", "text": "Yo {name}!", "p": 8})["putProcedure"],
        alice.data(PROCEDURE, {"name": "farewell", "text": "You got this."})["putProcedure"],
    ]
    ended = []
    for topic in ("the date with Jessica", "Sarah at work", "fantasy football"):
        sid = h.start(alice)["id"]
        h.put(alice, sid, f"Let's talk about {topic}", speaker="alice")
        ended.append(alice.data(h.END, {"id": sid, "summary": f"Talked about {topic}."}))
    open_sid = h.start(alice)["id"]
    h.put(alice, open_sid, "Quick question about climbing", speaker="alice")
    progress = alice.data(SUMMARIZE, {"id": open_sid, "summary": "Asking about climbing."})
    return {
        "persona": persona,
        "facts": facts,
        "procedures": [p["id"] for p in procedures],
        "summaries": [e["endSession"]["summary"]["id"] for e in ended],
        "progress": progress["summarizeSession"]["summary"]["id"],
    }


def test_persona_context_packs_every_section_with_the_ids_used(
    settings: Settings, alice: Caller, bob: Caller, neo4j_session: Any
) -> None:
    world = _world(settings, alice, neo4j_session)
    context = _context(alice)
    assert [s["section"] for s in context["sections"]] == [
        "CORE",
        "RELATIONSHIP",
        "FACTS",
        "RECENT_SESSIONS",
        "PROCEDURES",
    ]
    version_id = world["persona"]["currentVersionId"]
    assert context["version"]["id"] == version_id and context["displayName"] == "Al"
    core = _lines(context, "CORE")
    assert core[0]["text"] == CORE["systemPrompt"] and {line["recordId"] for line in core} == {
        version_id
    }
    assert core[1]["text"] == "Traits: empathy: 0.7; humor_type: dry"
    assert [line["text"] for line in core[2:]] == [
        "- Always be decisive",
        "- Give practical solutions",
    ]
    assert [line["text"] for line in _lines(context, "RELATIONSHIP")][:2] == [
        "Relationship: bro",
        "You call her dude.",
    ]
    # Facts: the subject's, of brad or of no agent (not sue's, not alice2's), priority first.
    assert [line["recordId"] for line in _lines(context, "FACTS")] == world["facts"]
    # auto_recall_depth 2: the two newest sessions, the open one by its progress summary.
    recent = _lines(context, "RECENT_SESSIONS")
    assert [line["recordId"] for line in recent] == [world["progress"], world["summaries"][2]]
    assert "(in progress): Asking about climbing." in recent[0]["text"]
    assert "(ended): Talked about fantasy football." in recent[1]["text"]
    assert [line["recordId"] for line in _lines(context, "PROCEDURES")] == world["procedures"]
    assert context["usedIds"] == [
        version_id,
        *world["facts"],
        world["progress"],
        world["summaries"][2],
        *world["procedures"],
    ]
    assert "=== WHAT YOU KNOW ABOUT AL ===" in context["prompt"]
    assert context["omitted"] == 0
    assert sum(s["tokens"] for s in context["sections"]) == context["tokensUsed"]
    assert math.ceil(len(context["prompt"]) / 4) <= context["tokensUsed"] <= 4000

    # A small budget keeps what fits in section order and counts the rest.
    small = _context(alice, b=30)
    assert small["tokensUsed"] <= 30 and small["omitted"] > 0
    assert small["sections"][0]["section"] == "CORE"
    assert len(small["usedIds"]) < len(context["usedIds"])
    # The relationship's memory settings: no personal facts, no past conversations.
    alice.data(
        RELATE,
        {"settings": {"remember_personal_facts": False, "remember_past_conversations": False}},
    )
    quiet = [s["section"] for s in _context(alice)["sections"]]
    assert quiet == ["CORE", "RELATIONSHIP", "PROCEDURES"]

    # An older version's core, on request; a version it lacks is NOT_FOUND.
    _edit(alice, world["persona"]["id"], systemPrompt="Brad v2", reason="v2")
    assert _lines(_context(alice), "CORE")[0]["text"] == "Brad v2"
    assert _lines(_context(alice, v=1), "CORE")[0]["text"] == CORE["systemPrompt"]
    assert error_code(alice.gql(CONTEXT, {"s": "alice", "p": "brad", "v": 9})) == "NOT_FOUND"

    # Bob: alice's persona is a missing one; his own sees none of alice's memory.
    missing = bob.gql(CONTEXT, {"s": "alice", "p": "nobody"})
    assert error_code(bob.gql(CONTEXT, {"s": "alice", "p": "brad"})) == error_code(missing)
    _create(bob)
    theirs = _context(bob)
    assert [s["section"] for s in theirs["sections"]] == ["CORE"]
    for bad in ({"s": "al ice"}, {"p": "bad name!"}, {"b": 0}, {"v": 0}):
        assert error_code(alice.gql(CONTEXT, {"s": "alice", "p": "brad"} | bad)) == "VALIDATION"


def test_summarize_session_mid_session_keeps_it_open(alice: Caller, bob: Caller) -> None:
    sid = h.start(alice)["id"]
    made = [h.put(alice, sid, text)["id"] for text in ("Hey Brad", "Work is rough with Sarah")]
    first = alice.data(SUMMARIZE, {"id": sid})["summarizeSession"]
    summary = first["summary"]
    assert (summary["key"], summary["kind"], summary["version"]) == (
        "session-progress",
        "EPISODIC",
        1,
    )
    assert summary["sessionId"] == sid and summary["tags"] == ["session-progress"]
    assert "Sarah" in summary["text"]  # the built-in extractive summary
    assert first["entriesSummarized"] == 2 and first["session"]["status"] == "OPEN"
    made.append(h.put(alice, sid, "Decided to talk to her Monday")["id"])
    second = alice.data(SUMMARIZE, {"id": sid, "summary": "Plan: talk Monday."})["summarizeSession"]
    assert second["summary"]["id"] == summary["id"] and second["summary"]["version"] == 2
    assert second["summary"]["text"] == "Plan: talk Monday."
    assert sorted(e["id"] for e in second["summary"]["summarizes"]) == sorted(made)
    ended = alice.data(h.END, {"id": sid})["endSession"]
    assert ended["summary"]["id"] != summary["id"]  # the final summary is its own record
    after = alice.gql(SUMMARIZE, {"id": sid})
    assert error_code(after) == "INVALID_TRANSITION"
    foreign, missing = bob.gql(SUMMARIZE, {"id": sid}), bob.gql(SUMMARIZE, {"id": MISSING_ID})
    assert error_code(foreign) == error_code(missing) == "NOT_FOUND"
    assert error_code(alice.gql(SUMMARIZE, {"id": h.start(alice)["id"], "summary": " "})) == (
        "VALIDATION"
    )


def _end(caller: Caller, sid: str, facts: list[dict[str, Any]]) -> dict[str, Any]:
    return dict(caller.data(END_FACTS, {"id": sid, "facts": facts})["endSession"])


def test_end_session_learns_facts_once(alice: Caller, bob: Caller) -> None:
    known = remember(
        alice,
        namespace={"subject": "alice", "agent": "brad", "path": ["notes"]},
        text="Alice is allergic to peanuts.",
    )
    sid = h.start(alice)["id"]
    facts = [
        {"text": "alice is ALLERGIC to   peanuts"},
        {"key": "job", "text": "Works at TechCorp", "priority": 8, "tags": ["work"]},
        {"text": "Loves rock climbing"},
        {"text": "loves rock-climbing!"},
    ]
    ended = _end(alice, sid, facts)
    outcomes = [(f["outcome"], f["record"]["id"]) for f in ended["facts"]]
    created = [record_id for outcome, record_id in outcomes if outcome == "CREATED"]
    assert [o for o, _ in outcomes] == ["DUPLICATE", "CREATED", "CREATED", "DUPLICATE"]
    assert outcomes[0][1] == known["id"] and outcomes[3][1] == outcomes[2][1]
    job = ended["facts"][1]["record"]
    assert (job["namespace"], job["key"], job["kind"]) == (
        "subject:alice/agent:brad/facts",
        "job",
        "SEMANTIC",
    )
    assert job["tags"] == ["work", "session-fact"] and job["learnedIn"] == [{"id": sid}]
    learned = sorted(r["id"] for r in ended["session"]["learned"])
    assert ended["session"]["status"] == "FLUSHED" and learned == sorted([known["id"], *created])

    later = h.start(alice)["id"]
    again = _end(
        alice,
        later,
        [
            {"key": "job", "text": "works at techcorp."},
            {"key": "job", "text": "Works at Initech now"},
        ],
    )
    assert [f["outcome"] for f in again["facts"]] == ["UNCHANGED", "UPDATED"]
    assert again["facts"][1]["record"]["id"] == job["id"]
    assert again["facts"][1]["record"]["version"] == 2

    # Bad facts write nothing: the session stays open; facts need the session's subject.
    open_sid = h.start(alice)["id"]
    for bad in ([{"text": " ... "}], [{"text": "x"}] * 101, [{"text": "ok", "priority": 11}]):
        assert error_code(alice.gql(END_FACTS, {"id": open_sid, "facts": bad})) == "VALIDATION"
    no_subject = h.start(alice, subject=None)["id"]
    refused = error_of(alice.gql(END_FACTS, {"id": no_subject, "facts": [{"text": "hi"}]}))
    assert (refused["code"], refused["field"]) == ("VALIDATION", "facts")
    assert h.rehydrate(alice, no_subject, "SUMMARY_ONLY")["session"]["status"] == "OPEN"
    foreign = bob.gql(END_FACTS, {"id": open_sid, "facts": [{"text": "hi"}]})
    assert error_code(foreign) == "NOT_FOUND"
    assert h.rehydrate(alice, open_sid, "SUMMARY_ONLY")["session"]["status"] == "OPEN"


def test_transcripts_past_their_retention_are_swept(
    settings: Settings, alice: Caller, neo4j_session: Any
) -> None:
    sid = h.start(alice)["id"]
    attach = {"sessionId": sid}
    old = alice.data(h.ATTACH, {"input": attach | {"text": "brad: old call"}})
    new = alice.data(h.ATTACH, {"input": attach | {"text": "brad: new call"}})
    audio = alice.data(h.ATTACH, {"input": attach | {"text": "old audio", "kind": "audio"}})
    old_id, new_id = old["attachSessionTranscript"]["id"], new["attachSessionTranscript"]["id"]
    audio_id = audio["attachSessionTranscript"]["id"]
    a_year_ago = datetime.now(UTC) - timedelta(days=366)
    neo4j_session.run(
        "MATCH (a:MemoryArtifact) WHERE a.id IN $ids SET a.created_at = $at",
        ids=[old_id, audio_id],
        at=a_year_ago,
    )
    swept = asyncio.run(run_sweep(settings, client_id=alice.client_id))
    assert swept["transcripts"] == 1 and swept["error"] is None
    gone = alice.gql(h.READ_ARTIFACT, {"id": old_id})
    assert error_code(gone) == "NOT_FOUND"
    assert alice.data(h.READ_ARTIFACT, {"id": new_id})["sessionArtifact"]["intact"] is True
    assert alice.data(h.READ_ARTIFACT, {"id": audio_id})["sessionArtifact"]["text"] == "old audio"
    key = old["attachSessionTranscript"]["uri"].removeprefix(f"s3://{settings.s3_bucket}/")
    assert not list(make_client(settings).list_objects(settings.s3_bucket, prefix=key))


def test_personas_are_searchable_by_their_client_only(alice: Caller, bob: Caller) -> None:
    made = _create(alice, description="A decisive friend who talks fantasy football")
    wait_indexed(alice)
    hits = search(alice, "fantasy football friend", recordTypes=["PERSONA"], mode="KEYWORD")
    assert [hit["recordId"] for hit in hits] == [made["id"]]
    assert search(bob, "fantasy football friend", recordTypes=["PERSONA"], mode="KEYWORD") == []
