"""Benchmark: what the change feed costs on the write path, and how soon a subscriber hears of
a write made through another API process.

Three API processes on the same Neo4j: A and B record the feed, C runs with
AGENTMEM_CHANGE_FEED=false. Write cost: the same mutations through B and C, taking turns call by
call (createPlan, updatePlan, appendConversationEvent, remember), ratio B/C. Delivery: a
subscriber on A (graphql-transport-ws, `threadActivity`) while events are appended through B,
one at a time at random moments: milliseconds from sending the write to receiving its change,
and from the write's acknowledgement to receiving it.

Run: bash app/services/env.sh bench change_feed [--runs 300] [--deliveries 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from neo4j import GraphDatabase
from websockets.sync.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.cli.admin import create_key  # noqa: E402
from app.model.enums import Role  # noqa: E402
from app.settings import load_settings  # noqa: E402
from bench._common import (  # noqa: E402
    GraphQLClient,
    free_port,
    report,
    serve_api,
    summary,
    timed_rounds,
)

CREATE_PLAN = "mutation($n: String!) { createPlan(input: {name: $n, createdBy: AGENT}) { id } }"
UPDATE_PLAN = "mutation($id: ID!, $s: String!) { updatePlan(id: $id, input: {summary: $s}) { id } }"
CREATE_THREAD = """mutation($ref: String!) { createConversationThread(input: {
  platform: INSTAGRAM, threadType: DM, externalThreadRef: $ref}) { thread { id } } }"""
APPEND = """mutation($t: ID!, $ref: String!) { appendConversationEvent(input: {threadId: $t,
  direction: INBOUND, eventType: DM_MESSAGE, externalRef: $ref, text: "hello"}) {
  event { id } } }"""
REMEMBER = """mutation($input: RememberInput!) { remember(input: $input) { id } }"""
FOLLOW = """subscription($t: ID!) { threadActivity(threadId: $t) { recordId recordType } }"""


def _remember_input() -> dict[str, Any]:
    return {
        "input": {
            "kind": "SEMANTIC",
            "namespace": {"subject": "alice", "agent": "bench", "path": ["bench", "feed"]},
            "key": uuid.uuid4().hex,
            "text": "the user prefers short answers",
        }
    }


def write_cases(http: GraphQLClient) -> dict[str, Callable[[], None]]:
    plan = http.post(CREATE_PLAN, {"n": "bench plan"})["data"]["createPlan"]["id"]
    thread = http.post(CREATE_THREAD, {"ref": f"ig:{uuid.uuid4().hex}"})
    thread_id = thread["data"]["createConversationThread"]["thread"]["id"]
    return {
        "createPlan": lambda: http.post(CREATE_PLAN, {"n": "p"}) and None,
        "updatePlan": lambda: http.post(UPDATE_PLAN, {"id": plan, "s": uuid.uuid4().hex}) and None,
        "appendConversationEvent": lambda: (
            http.post(APPEND, {"t": thread_id, "ref": uuid.uuid4().hex}) and None
        ),
        "remember": lambda: http.post(REMEMBER, _remember_input()) and None,
    }


def deliveries(
    subscriber_port: int, writer: GraphQLClient, key: str, count: int
) -> dict[str, list[float]]:
    thread = writer.post(CREATE_THREAD, {"ref": f"ig:{uuid.uuid4().hex}"})
    thread_id = thread["data"]["createConversationThread"]["thread"]["id"]
    sent_ms, acked_ms = [], []
    url = f"ws://127.0.0.1:{subscriber_port}/graphql"
    with connect(url, subprotocols=["graphql-transport-ws"]) as socket:  # type: ignore[list-item]
        socket.send(
            json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {key}"}})
        )
        assert json.loads(socket.recv(timeout=10))["type"] == "connection_ack"
        payload = {"query": FOLLOW, "variables": {"t": thread_id}}
        socket.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        time.sleep(0.5)  # the subscription has read the feed's position
        pause = random.Random(count)
        for n in range(count):
            # Writes at random moments of the subscriber process's poll: right after a delivery
            # a write would always wait out the whole poll interval.
            time.sleep(pause.uniform(0, 0.25))
            started = time.perf_counter()
            event = writer.post(APPEND, {"t": thread_id, "ref": uuid.uuid4().hex})
            acked = time.perf_counter()
            event_id = event["data"]["appendConversationEvent"]["event"]["id"]
            while True:
                message = json.loads(socket.recv(timeout=30))
                if message["type"] == "ping":
                    socket.send(json.dumps({"type": "pong"}))
                    continue
                change = message["payload"]["data"]["threadActivity"]
                if change["recordId"] == event_id:
                    break
            received = time.perf_counter()
            sent_ms.append((received - started) * 1000)
            acked_ms.append((received - acked) * 1000)
            if (n + 1) % max(1, count // 10) == 0:
                print(f"\r  deliveries: {n + 1}/{count}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return {"delivery from write sent": sent_ms, "delivery from write acknowledged": acked_ms}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=300, help="calls per write case and path")
    parser.add_argument("--deliveries", type=int, default=200)
    args = parser.parse_args()
    settings = load_settings()
    client = f"bench-feed-{uuid.uuid4().hex[:8]}"
    issued = asyncio.run(create_key(settings, client=client, role=Role.AGENT, agent_name="bench"))
    ports = {"A": free_port(), "B": free_port(), "C": free_port()}
    # As the other write benches: the in-process embedding worker's model runs would share the
    # 2 cores with the writes measured (production runs `embed-worker` processes).
    os.environ.setdefault("AGENTMEM_EMBEDDING_WORKER_IN_PROCESS", "false")
    environment = dict(os.environ)
    servers = []
    try:
        for name, port in ports.items():
            os.environ["AGENTMEM_CHANGE_FEED"] = "false" if name == "C" else "true"
            print(f"starting API {name} on {port} ...", file=sys.stderr)
            servers.append(serve_api(port))
        os.environ.clear()
        os.environ.update(environment)
        feed_on, feed_off = (GraphQLClient(ports[n], issued.secret) for n in ("B", "C"))
        cases = {f"{name} feed on": call for name, call in write_cases(feed_on).items()}
        cases |= {f"{name} feed off": call for name, call in write_cases(feed_off).items()}
        samples = timed_rounds(cases, runs=args.runs, warmup=10, label="writes")
        samples |= deliveries(ports["A"], feed_on, issued.secret, args.deliveries)
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=20)
    rows = {case: summary(values) for case, values in samples.items()}
    ratios = {
        f"{name} feed on / off": rows[f"{name} feed on"]["median_ms"]
        / rows[f"{name} feed off"]["median_ms"]
        for name in ("createPlan", "updatePlan", "appendConversationEvent", "remember")
    }
    sizes = {"runs": args.runs, "deliveries": args.deliveries, "poll_s": settings.change_poll_s}
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        server = driver.get_server_info().agent
    report("change_feed", sizes=sizes, rows=rows, ratios=ratios, neo4j_server=server)


if __name__ == "__main__":
    main()
