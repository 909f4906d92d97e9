"""The load benchmark's graph: demo plans (plans, plan nodes, assets, variants, prompts,
approvals, packages, runs, evidence) written by the demo generator, memory records and
conversation events (LoCoMo turns) written through the API, then indexed by the API's
embedding worker before any load starts."""

from __future__ import annotations

import asyncio
import random
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from app.demo.generator import generate_demo
from app.graph.executor import GraphExecutor
from app.graph.identifiers import cypher_label
from app.retrieval.searchable import SEARCHABLE
from app.runtime import connected
from app.settings import Settings
from bench._common import GraphQLClient
from bench._ingest_load import STATUS
from bench._load_mix import REMEMBER, Seeded, event, memory
from bench.embedding import load_texts
from bench.event_append import APPEND_MANY, CREATE

# The generator dates its records weeks back, behind the embedding worker's cursor, which
# only looks at what changed since; dated now, they are indexed like fresh writes.
TOUCH = "MATCH (n:{label} {{client_id: $client_id}}) SET n.updated_at = $now RETURN count(n) AS n"
IDS = "MATCH (n:{label} {{client_id: $client_id}}) RETURN n.id AS id LIMIT $limit"
ID_LABELS = {
    "plan": "Plan",
    "asset": "Asset",
    "variant": "AssetVariant",
    "event": "ConversationEvent",
}
MAX_IDS = 1_000


def say(message: str) -> None:
    print(f"[load {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


async def seed_demo(settings: Settings, client_id: str, plans: int) -> int:
    """Demo plans for the client, made pending for the worker; the records touched."""
    async with connected(settings) as graph:
        await generate_demo(graph, None, client_id=client_id, plans=plans, progress=True)
        touched = 0
        for label in SEARCHABLE:
            query = TOUCH.format(label=cypher_label(label))
            rows = await graph.write(query, {"client_id": client_id, "now": datetime.now(UTC)})
            touched += int(rows[0]["n"]) if rows else 0
        return touched


def texts(path: Path) -> tuple[list[str], list[str]]:
    """(search questions in a seeded order, turn texts): the questions' first few are the
    often-repeated ones, and from the same conversations as the records they may find."""
    if not path.exists():
        raise SystemExit(f"no LoCoMo file at {path}: pass --texts PATH (LoCoMo JSON format)")
    questions, turns = load_texts(path)
    unique = list(dict.fromkeys(questions))
    random.Random(7).shuffle(unique)
    return unique, turns


def seed_api(
    api: GraphQLClient, *, memories: int, threads: int, events: int, turns: list[str]
) -> list[str]:
    """Memory records k0..k{memories-1} and `threads` conversations sharing `events` events,
    written through the API; the thread ids."""
    for n in range(memories):
        api.post(REMEMBER, {"input": memory(n, f"k{n}", turns[n % len(turns)])})
        if (n + 1) % 50 == 0:
            say(f"remembered {n + 1}/{memories}")
    thread_ids = []
    per_thread = max(1, events // threads)
    for t in range(threads):
        ref = {"platform": "INSTAGRAM", "threadType": "DM", "externalThreadRef": f"load-{t}"}
        answer = api.post(CREATE, {"i": ref})["data"]
        thread_id = answer["createConversationThread"]["thread"]["id"]
        first = memories + t * per_thread
        batch = [event(thread_id, turns[(first + i) % len(turns)], i) for i in range(per_thread)]
        api.post(APPEND_MANY, {"e": batch})
        thread_ids.append(thread_id)
    say(f"{threads} threads, {threads * per_thread} events appended")
    return thread_ids


def wait_indexed(api: GraphQLClient, timeout_s: float) -> int:
    """Polls the client's pending count until it is 0 or time runs out; what is left."""
    deadline = time.monotonic() + timeout_s
    while True:
        pending = int(api.post(STATUS)["data"]["searchStatus"]["pending"])
        print(
            f"\r  waiting for the embedding worker: {pending} pending   ", end="", file=sys.stderr
        )
        if pending == 0 or time.monotonic() > deadline:
            print(file=sys.stderr)
            return pending
        time.sleep(1)


async def record_ids(graph: GraphExecutor, client_id: str) -> dict[str, list[str]]:
    out = {}
    for kind, label in ID_LABELS.items():
        query = IDS.format(label=cypher_label(label))
        rows = await graph.read(query, {"client_id": client_id, "limit": MAX_IDS})
        out[kind] = [str(row["id"]) for row in rows]
    return out


def seeded(
    settings: Settings,
    client_id: str,
    *,
    memories: int,
    thread_ids: list[str],
    texts: tuple[list[str], list[str]],
) -> Seeded:
    async def read() -> dict[str, list[str]]:
        async with connected(settings) as graph:
            return await record_ids(graph, client_id)

    ids = asyncio.run(read())
    empty = [kind for kind, found in ids.items() if not found]
    if empty:
        raise SystemExit(f"the seeded graph has no {', '.join(empty)} records")
    questions, turns = texts
    return Seeded(ids, memories, thread_ids, turns, questions)
