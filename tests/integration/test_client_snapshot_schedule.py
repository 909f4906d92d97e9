"""Weekly and monthly client snapshots on the real Neo4j and S3: the last completed windows are
written once each (run again, or twice at once, they write nothing), their risks name
escalations and contradicted lessons of the client only, the CLI writes through the same
function, and the API shows the period. The runs are scoped to the test's clients: the shared
test graph holds many others."""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.artifacts.store import make_client
from app.cli.commands import main
from app.domain.lessons import WindowSnapshot
from app.model.enums import SnapshotPeriod
from app.runtime.client_snapshots import run_client_snapshots
from app.settings import Settings
from tests.integration.asset_helpers import error_code, principal_of, store_for
from tests.integration.conftest import Caller

AT = datetime(2026, 6, 3, 12, tzinfo=UTC)  # a Wednesday
WEEK = (datetime(2026, 5, 25, tzinfo=UTC), datetime(2026, 6, 1, tzinfo=UTC))
MONTH = (datetime(2026, 5, 1, tzinfo=UTC), datetime(2026, 6, 1, tzinfo=UTC))
PERIODS = (SnapshotPeriod.WEEKLY, SnapshotPeriod.MONTHLY)
NAMES = ("asset", "metric", "episode", "thread", "event", "held", "contradicted", "old", "new")
# One client's week: an asset with a metric, escalations of three kinds, a lesson contradicted
# by the metric, and a lesson that superseded (and CONTRADICTS) an older one.
SEED = """
CREATE (a:Asset {id: $ids.asset, client_id: $c, asset_type: 'reel', status: 'published',
        title: 'Spring reel', created_by: 'agent', created_at: $t.early, updated_at: $t.early})
CREATE (m:PerformanceMetric {id: $ids.metric, client_id: $c, platform: 'ig', metric_type: 'saves',
        value: 40.0, window_start: $t.in_week, window_end: $t.in_week + duration('P1D'),
        created_at: $t.in_week, updated_at: $t.in_week})-[:MEASURES]->(a)
CREATE (:AgentEpisode {id: $ids.episode, client_id: $c, agent_name: 'creator',
        task_class: 'reply', trigger: 'planner_tick', status: 'escalated',
        created_at: $t.in_week, updated_at: $t.in_week, closed_at: $t.in_week})
CREATE (:ConversationThread {id: $ids.thread, client_id: $c, platform: 'instagram',
        thread_type: 'dm', external_thread_ref: $ids.thread, status: 'escalated',
        handoff_state: 'awaiting_human', event_count: 0, events_since_summary: 0,
        summary_version: 0, needs_summary: false, created_at: $t.early, updated_at: $t.in_week})
CREATE (:EngagementEvent {id: $ids.event, client_id: $c, platform: 'ig',
        event_kind: 'escalation', actor: 'ai', result: 'success',
        created_at: $t.early, updated_at: $t.early})
WITH m
UNWIND $lessons AS x
CREATE (l:Lesson {id: x.id, client_id: $c, scope: 'client', lesson_type: 'what_worked',
        statement: x.statement, confidence: 0.9, decay_half_life_days: 30.0,
        last_evidence_at: datetime(), valid_from: $t.early, valid_to: x.valid_to,
        retired: false, created_at: $t.early, updated_at: $t.early})
WITH m, collect(l) AS lessons
MATCH (held:Lesson {id: $ids.contradicted}), (old:Lesson {id: $ids.old}),
      (new:Lesson {id: $ids.new})
CREATE (m)-[:CONTRADICTS {link_id: randomUUID(), client_id: $c, author: 'agent:tester',
        created_at: $t.in_week}]->(held)
CREATE (new)-[:SUPERSEDES]->(old)
CREATE (new)-[:CONTRADICTS {link_id: randomUUID(), client_id: $c, author: 'agent:tester',
        created_at: $t.early}]->(old)
"""
COUNTS = """
MATCH (s:ClientSnapshot {client_id: $c}) WHERE s.window_key IS NOT NULL
RETURN s.period AS period, count(*) AS n ORDER BY period
"""


def seed(session: Any, client_id: str) -> dict[str, str]:
    ids = {name: str(uuid.uuid4()) for name in NAMES}
    times = {"early": MONTH[0] + timedelta(days=3), "in_week": WEEK[0] + timedelta(days=2)}
    lessons = [
        {"id": ids["held"], "statement": "Reels win", "valid_to": None},
        {"id": ids["contradicted"], "statement": "Saves beat likes", "valid_to": None},
        {"id": ids["old"], "statement": "Post at noon", "valid_to": times["early"]},
        {"id": ids["new"], "statement": "Post at night", "valid_to": None},
    ]
    # The newer lesson starts when the old one ends (as supersedeLesson writes them).
    session.run(SEED, c=client_id, ids=ids, t=times, lessons=lessons).consume()
    return ids


def scheduled(settings: Settings, client_id: str, at: datetime = AT) -> list[WindowSnapshot]:
    return asyncio.run(run_client_snapshots(settings, periods=PERIODS, at=at, client_id=client_id))


def stored_state(settings: Settings, session: Any, client_id: str) -> dict[str, Any]:
    """The client's scheduled snapshot nodes by period, and its snapshot objects with etags."""
    nodes = {r["period"]: r["n"] for r in session.run(COUNTS, c=client_id)}
    prefix = f"client/{client_id}/snapshots/"
    listed = make_client(settings).list_objects(settings.s3_bucket, prefix=prefix, recursive=True)
    return {"nodes": nodes, "objects": {o.object_name: o.etag for o in listed}}


def snapshot_node(session: Any, snapshot_id: str) -> dict[str, Any]:
    record = session.run("MATCH (s:ClientSnapshot {id: $id}) RETURN s", id=snapshot_id).single()
    return dict(record["s"])


def test_scheduled_snapshots_are_written_once_per_window(
    settings: Settings, alice: Caller, bob: Caller, neo4j_session: Any
) -> None:
    mine, theirs = seed(neo4j_session, alice.client_id), seed(neo4j_session, bob.client_id)
    first = scheduled(settings, alice.client_id)
    assert [(s.window.period, s.window.start, s.window.end, s.written) for s in first] == [
        (SnapshotPeriod.WEEKLY, *WEEK, True),
        (SnapshotPeriod.MONTHLY, *MONTH, True),
    ]
    state = stored_state(settings, neo4j_session, alice.client_id)
    assert state["nodes"] == {"monthly": 1, "weekly": 1} and len(state["objects"]) == 2
    assert stored_state(settings, neo4j_session, bob.client_id)["nodes"] == {}  # scoped run

    weekly = snapshot_node(neo4j_session, first[0].snapshot_id)
    assert weekly["window_key"] == f"weekly/{WEEK[0].isoformat()}"
    assert weekly["top_assets"] == [mine["asset"]]
    risks = json.loads(weekly["risks"])
    escalated = {r["source"]: r["sample_ids"] for r in risks if r["kind"] == "escalations"}
    # The escalation event is of the month, before this week.
    assert escalated == {
        "conversation_thread": [mine["thread"]],
        "agent_episode": [mine["episode"]],
    }
    contradicted = [r for r in risks if r["kind"] == "contradicted_lesson"]
    assert [(r["lesson_id"], r["sample_ids"]) for r in contradicted] == [
        (mine["contradicted"], [mine["metric"]])
    ]
    monthly_risks = json.loads(snapshot_node(neo4j_session, first[1].snapshot_id)["risks"])
    escalation_events = [r for r in monthly_risks if r.get("source") == "engagement_event"]
    assert [r["sample_ids"] for r in escalation_events] == [[mine["event"]]]
    notes = asyncio.run(
        store_for(settings).get(principal_of(alice), weekly["strategy_notes_uri"])
    ).decode()
    notes_key = f"/snapshots/{first[0].snapshot_id}/strategy-notes.md"
    assert weekly["strategy_notes_uri"].endswith(notes_key)
    assert "- 1 conversation threads escalated to a human" in notes
    assert "- Contradicted lesson: Saves beat likes (1 contradicting records)" in notes
    assert "Post at night" not in notes.split("## Risks")[1]  # its old lesson ended before

    # Again: found, nothing written (same nodes, the objects untouched).
    again = scheduled(settings, alice.client_id)
    assert [(s.snapshot_id, s.written) for s in again] == [(s.snapshot_id, False) for s in first]
    assert stored_state(settings, neo4j_session, alice.client_id) == state

    # Two runs at once a week later: the new week is written by one of them, the month found.
    later = AT + timedelta(days=7)

    async def twice() -> list[list[WindowSnapshot]]:
        return list(await asyncio.gather(*(run_at(settings, alice, later) for _ in range(2))))

    both = [s for run in asyncio.run(twice()) for s in run]
    new_week = [s for s in both if s.window.period is SnapshotPeriod.WEEKLY]
    assert len({s.snapshot_id for s in new_week}) == 1 and sum(s.written for s in new_week) == 1
    assert not any(s.written for s in both if s.window.period is SnapshotPeriod.MONTHLY)
    after = stored_state(settings, neo4j_session, alice.client_id)
    assert after["nodes"] == {"monthly": 1, "weekly": 2} and len(after["objects"]) == 3
    assert state["objects"].items() <= after["objects"].items()

    # Bob's snapshots name only his records.
    bobs = scheduled(settings, bob.client_id)
    bob_risks = snapshot_node(neo4j_session, bobs[1].snapshot_id)["risks"]
    assert theirs["episode"] in bob_risks and theirs["contradicted"] in bob_risks
    assert not any(value in bob_risks for value in mine.values())
    assert not any(value in weekly["risks"] for value in theirs.values())


async def run_at(settings: Settings, caller: Caller, at: datetime) -> list[WindowSnapshot]:
    """One run, as a process of its own would make it (its own driver and S3 client)."""
    return await run_client_snapshots(settings, periods=PERIODS, at=at, client_id=caller.client_id)


CLIENT_SNAPSHOT = """query($id: ID!) { clientSnapshot(id: $id) { id period windowKey
    timeWindowStart timeWindowEnd topAssets strategyNotes } }"""
GENERATE = """mutation($from: DateTime!, $to: DateTime!) {
    generateClientSnapshot(from: $from, to: $to) { id period windowKey } }"""


def test_the_cli_writes_through_the_same_function_and_the_api_shows_the_period(
    settings: Settings,
    alice: Caller,
    bob: Caller,
    neo4j_session: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ids = seed(neo4j_session, alice.client_id)
    argv = ["client-snapshots", "--client-id", alice.client_id, "--at", "2026-06-03T12:00:00Z"]
    assert main([*argv, "--period", "weekly"]) == 0
    wrote = capsys.readouterr().out.splitlines()
    assert len(wrote) == 2 and wrote[-1] == "wrote 1 snapshots, 0 existed"
    assert f"({alice.client_id}) weekly 2026-05-25T00:00:00+00:00" in wrote[0]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert ": exists " in lines[0] and ": wrote " in lines[1] and lines[0].split()[-1] in wrote[0]
    assert lines[-1] == "wrote 1 snapshots, 1 existed"
    assert main([*argv[:2], str(uuid.uuid4())]) == 2
    assert "no client with id" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*argv, "--period", "custom"])  # argparse refuses it
    assert "invalid choice: 'custom'" in capsys.readouterr().err

    weekly_id = lines[0].split()[-1]
    snap = alice.data(CLIENT_SNAPSHOT, {"id": weekly_id})["clientSnapshot"]
    assert snap["period"] == "WEEKLY" and snap["windowKey"] == f"weekly/{WEEK[0].isoformat()}"
    assert snap["topAssets"] == [ids["asset"]]
    assert snap["strategyNotes"].startswith("# Strategy notes (weekly): 2026-05-25 to 2026-06-01")
    assert error_code(bob.gql(CLIENT_SNAPSHOT, {"id": weekly_id})) == "NOT_FOUND"
    window = {"from": WEEK[0].isoformat(), "to": WEEK[1].isoformat()}
    custom = [alice.data(GENERATE, window)["generateClientSnapshot"] for _ in range(2)]
    assert [(c["period"], c["windowKey"]) for c in custom] == [("CUSTOM", None)] * 2
    assert custom[0]["id"] != custom[1]["id"]  # a custom window may be asked for again
    listed = alice.data(
        '{ clientSnapshots(first: 10, where: {period: "weekly"}) { nodes { id period } } }'
    )["clientSnapshots"]["nodes"]
    assert [(s["id"], s["period"]) for s in listed] == [(weekly_id, "WEEKLY")]
