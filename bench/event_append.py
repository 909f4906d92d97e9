"""Benchmark: conversation event appends, one event and 100 per request, through HTTP GraphQL
versus the same writes as hand-written Cypher through the driver (lock the thread, check the
external ref, next sequence, create the event, update the thread's counters), in one run, on a
client holding at least 100k events (generated once with the batch append, then reused).

Run: bash app/services/env.sh bench event_append [--events 100000] [--runs 500] [--batch 100]
     [--batch-runs 50]   (local servers up)
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import itertools
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from neo4j import Driver, GraphDatabase

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.cli.admin import create_key  # noqa: E402
from app.model.enums import Role  # noqa: E402
from app.settings import load_settings  # noqa: E402
from bench._common import report, serve_api, summary, timed  # noqa: E402

CLIENT = "bench-event-append"
PER_THREAD = 100
CREATE = """mutation($i: CreateConversationThreadInput!) {
  createConversationThread(input: $i) { thread { id } } }"""
APPEND = """mutation($i: AppendConversationEventInput!) {
  appendConversationEvent(input: $i) { duplicate event { id sequence } } }"""
APPEND_MANY = """mutation($e: [AppendConversationEventInput!]!) {
  appendConversationEvents(events: $e) { appended duplicates } }"""
COUNT = "MATCH (e:ConversationEvent {client_id: $c}) RETURN count(e) AS n"
# The hand-written baseline: the same writes, one query per transaction.
CYPHER_ONE = """
MATCH (t:ConversationThread {id: $thread_id, client_id: $client_id})
SET t._lock = true REMOVE t._lock
WITH t
WHERE NOT EXISTS { MATCH (:ConversationEvent {
  client_id: $client_id, thread_id: t.id, external_ref: $event.external_ref}) }
CREATE (t)-[:HAS_EVENT]->(e:ConversationEvent)
SET e = $event, e.sequence = t.event_count + 1, e.platform = t.platform
SET t.event_count = t.event_count + 1, t.events_since_summary = t.events_since_summary + 1,
    t.last_event_at = $event.created_at, t.updated_at = $event.created_at
RETURN e.sequence AS sequence
"""
CYPHER_MANY = """
MATCH (t:ConversationThread {id: $thread_id, client_id: $client_id})
SET t._lock = true REMOVE t._lock
WITH t, t.event_count AS base
UNWIND range(0, size($events) - 1) AS i
WITH t, base, i, $events[i] AS ev
WHERE NOT EXISTS { MATCH (:ConversationEvent {
  client_id: $client_id, thread_id: t.id, external_ref: ev.external_ref}) }
CREATE (t)-[:HAS_EVENT]->(e:ConversationEvent)
SET e = ev, e.sequence = base + i + 1, e.platform = t.platform
WITH t, count(e) AS n, max(e.created_at) AS last
SET t.event_count = t.event_count + n, t.events_since_summary = t.events_since_summary + n,
    t.last_event_at = last, t.updated_at = last
RETURN n
"""
TEXTS = [
    "Hi! How much do you charge for a tankless water heater install?",
    "Pricing depends on your home, so we do a free in-home estimate. What's your address?",
    "We're at 42 Elm Street. Hoping to get it done next week.",
    "Great, we can come Tuesday morning. Does 9am work for you?",
]


class Api:
    def __init__(self, port: int, key: str) -> None:
        self.http = httpx.Client(
            base_url=f"http://127.0.0.1:{port}",
            headers={"Authorization": f"Bearer {key}"},
            timeout=120,
        )

    def call(self, query: str, variables: dict[str, Any]) -> Any:
        body = self.http.post("/graphql", json={"query": query, "variables": variables}).json()
        assert not body.get("errors"), body["errors"]
        return body["data"]

    def thread(self, ref: str) -> str:
        fields = {"platform": "INSTAGRAM", "threadType": "DM", "externalThreadRef": ref}
        return str(self.call(CREATE, {"i": fields})["createConversationThread"]["thread"]["id"])


def event_input(thread_id: str, n: int, at: datetime) -> dict[str, Any]:
    return {
        "threadId": thread_id,
        "direction": "INBOUND" if n % 2 == 0 else "OUTBOUND",
        "eventType": "DM_MESSAGE",
        "externalRef": f"ig:msg:{uuid.uuid4().hex}",
        "text": TEXTS[n % len(TEXTS)],
        "occurredAt": (at + timedelta(minutes=7 * n)).isoformat(),
    }


def event_props(client_id: str, thread_id: str, n: int) -> dict[str, Any]:
    now = datetime.now(UTC)
    return {
        "id": str(uuid.uuid4()),
        "client_id": client_id,
        "thread_id": thread_id,
        "direction": "inbound" if n % 2 == 0 else "outbound",
        "event_type": "dm_message",
        "external_ref": f"ig:msg:{uuid.uuid4().hex}",
        "text": TEXTS[n % len(TEXTS)],
        "created_at": now,
        "updated_at": now,
    }


def generate(api: Api, driver: Driver, client_id: str, target: int) -> dict[str, Any]:
    """Fill the client up to `target` events: threads of 100 events, one batch request each."""
    have = driver.execute_query(COUNT, {"c": client_id}).records[0]["n"]
    missing = max(0, target - have)
    threads = -(-missing // PER_THREAD)
    started, done = time.perf_counter(), 0
    base = datetime(2025, 1, 1, tzinfo=UTC)

    def fill(k: int) -> int:
        thread_id = api.thread(f"ig:thread:gen-{uuid.uuid4().hex}")
        batch = [event_input(thread_id, n, base) for n in range(PER_THREAD)]
        return int(api.call(APPEND_MANY, {"e": batch})["appendConversationEvents"]["appended"])

    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        for appended in pool.map(fill, range(threads)):
            done += appended
            rate = done / (time.perf_counter() - started)
            line = f"\r  generating: {have + done}/{target} events ({rate:.0f}/s)"
            print(line, end="", file=sys.stderr, flush=True)
    if threads:
        print(file=sys.stderr)
    seconds = time.perf_counter() - started
    total = driver.execute_query(COUNT, {"c": client_id}).records[0]["n"]
    return {"client_events": total, "generated_events": done, "generate_seconds": round(seconds, 1)}


def measure(api: Api, driver: Driver, client_id: str, args: argparse.Namespace) -> dict[str, Any]:
    db = load_settings().neo4j_database
    at = datetime(2026, 1, 1, tzinfo=UTC)
    counter = itertools.count()
    targets = {case: api.thread(f"ig:thread:bench-{case}-{uuid.uuid4().hex}") for case in "abcd"}

    def gql_one() -> None:
        n = next(counter)
        api.call(APPEND, {"i": event_input(targets["a"], n, at)})

    def cypher_one() -> None:
        params = {"thread_id": targets["b"], "client_id": client_id}
        event = event_props(client_id, targets["b"], next(counter))
        driver.execute_query(CYPHER_ONE, params | {"event": event}, database_=db)

    def gql_many() -> None:
        n = next(counter)
        batch = [event_input(targets["c"], n + i, at) for i in range(args.batch)]
        api.call(APPEND_MANY, {"e": batch})

    def cypher_many() -> None:
        events = [event_props(client_id, targets["d"], i) for i in range(args.batch)]
        params = {"thread_id": targets["d"], "client_id": client_id, "events": events}
        driver.execute_query(CYPHER_MANY, params, database_=db)

    batch, many = f"batch {args.batch}", (args.batch_runs, args.batch)
    cases = {
        "single: HTTP GraphQL": (gql_one, args.runs, 1),
        "single: driver, hand-written Cypher": (cypher_one, args.runs, 1),
        f"{batch}: HTTP GraphQL": (gql_many, *many),
        f"{batch}: driver, hand-written Cypher": (cypher_many, *many),
    }
    rows = {}
    for name, (fn, runs, per_call) in cases.items():
        stats = summary(timed(fn, runs=runs, warmup=max(3, runs // 20), label=name))
        stats["events_per_s"] = round(per_call * 1000 / stats["mean_ms"], 1)
        rows[name] = stats
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000, help="events in the client")
    parser.add_argument("--runs", type=int, default=500, help="single appends per case")
    parser.add_argument("--batch", type=int, default=100, help="events per batched request")
    parser.add_argument("--batch-runs", type=int, default=50, help="batched requests per case")
    parser.add_argument("--port", type=int, default=8767)
    args = parser.parse_args()
    settings = load_settings()
    issued = asyncio.run(create_key(settings, client=CLIENT, role=Role.AGENT, agent_name="bench"))
    client_id = issued.principal.client_id
    server = serve_api(args.port)
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    try:
        with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
            version = driver.get_server_info().agent
            api = Api(args.port, issued.secret)
            sizes = generate(api, driver, client_id, args.events)
            rows = measure(api, driver, client_id, args)
    finally:
        server.terminate()
        server.wait(timeout=30)
    single, batch = "single", f"batch {args.batch}"
    gql, cypher = "HTTP GraphQL", "driver, hand-written Cypher"
    ratios = {
        "single GraphQL/Cypher p50": rows[f"{single}: {gql}"]["median_ms"]
        / rows[f"{single}: {cypher}"]["median_ms"],
        "batch GraphQL/Cypher p50": rows[f"{batch}: {gql}"]["median_ms"]
        / rows[f"{batch}: {cypher}"]["median_ms"],
        "GraphQL events/s batch/single": rows[f"{batch}: {gql}"]["events_per_s"]
        / rows[f"{single}: {gql}"]["events_per_s"],
        "Cypher events/s batch/single": rows[f"{batch}: {cypher}"]["events_per_s"]
        / rows[f"{single}: {cypher}"]["events_per_s"],
    }
    sizes |= {"batch": args.batch, "runs": args.runs, "batch_runs": args.batch_runs}
    report(
        "event_append",
        sizes=sizes,
        rows=rows,
        ratios={name: round(value, 2) for name, value in ratios.items()},
        neo4j_server=version,
    )
    for name, stats in rows.items():
        print(f"{name}: {stats['events_per_s']:.0f} events/s")


if __name__ == "__main__":
    main()
