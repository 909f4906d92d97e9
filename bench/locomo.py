"""Benchmark: retrieval quality on LoCoMo conversations (recall@k of the evidence turns), through
the service's own API, for vector, keyword (BM25) and hybrid search, in two configurations:
turns only, and all records (turns + observations + session summaries).

Run: bash app/services/env.sh bench locomo [--data PATH] [--k 5 10 25] (local servers up).
Any file in the LoCoMo format works (default: the two dev conversations in ../shared/bench, never
copied into the repo). Each conversation gets a fresh client of its own (its memory, like one
user's), so a search of that client is a search within the conversation; the configurations
differ only in the record types searched. Each question is searched once per configuration and
mode with the largest k; recall@k for smaller k is read from the prefix of that ranking.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from neo4j import GraphDatabase

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.cli.admin import create_key  # noqa: E402
from app.model.enums import Role  # noqa: E402
from app.settings import load_settings  # noqa: E402
from bench._common import RESULTS, free_port, machine, serving, versions  # noqa: E402
from bench.locomo_data import Conversation, load  # noqa: E402
from bench.locomo_ingest import gql, ingest_notes, ingest_turns, wait_indexed  # noqa: E402
from bench.locomo_metric import Retrieved, Scored, by_category, dia_ids, recall_at  # noqa: E402
from bench.mem0_peer import measure_mem0  # noqa: E402
from bench.mem0_peer import table as mem0_table  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "bench" / "locomo-dev.json"
MODES = ("VECTOR", "KEYWORD", "HYBRID")
CACHED = "HYBRID, VECTOR CACHED"
CONFIGS = {
    "turns only": ["CONVERSATION_EVENT"],
    "all records": ["CONVERSATION_EVENT", "MEMORY_RECORD"],
}
SEARCH = """query($input: SearchInput!) { search(input: $input) { embedMs searchMs totalMs
  hits { record { __typename ... on ConversationEvent { externalRef }
                  ... on MemoryRecord { content } } } } }"""
# The API that answers the searches runs no embedding worker (a deployment may run it as a
# process of its own, `embed-worker`): other clients' records waiting in the database must not
# take turns on the model's thread while searches are timed.
SEARCHING = {"AGENTMEM_EMBEDDING_WORKER_IN_PROCESS": "false"}
# Measured by the README of ../shared/bench on the same file (turns only, categories 1-4);
# Mem0 is measured in the run itself (bench/mem0_peer.py).
PEERS = {
    "exact MiniLM cosine": {"r@5": 0.353, "r@10": 0.460, "r@25": 0.595},
    "BM25 (rank_bm25)": {"r@5": 0.423, "r@10": 0.508, "r@25": 0.613},
    "paper DRAGON dialog (all categories)": {"r@5": 0.567, "r@10": 0.662, "r@25": 0.767},
    "paper DRAGON session summaries (all categories)": {"r@5": 0.721, "r@10": 0.847},
}


def retrieved(hit: dict[str, Any]) -> Retrieved:
    record = hit["record"]
    if record["__typename"] == "ConversationEvent":
        return Retrieved(turns=dia_ids(record["externalRef"]))
    content = record.get("content") or {}
    if content.get("dia_ids"):
        return Retrieved(turns=dia_ids(content["dia_ids"]))
    return Retrieved(sessions=(int(content["session"]),))


def ingest(http: httpx.Client, conv: Conversation, timeout_s: float) -> dict[str, float]:
    """Writes one conversation, waiting for the worker every ~100 records (see locomo_ingest)."""
    waits: list[float] = []

    def settle() -> None:
        waits.append(wait_indexed([http], timeout_s))

    started = time.perf_counter()
    _, events = ingest_turns(http, conv, settle)
    records, links = ingest_notes(http, conv, events, settle)
    settle()
    seconds = time.perf_counter() - started
    print(
        f"\r  {conv.sample_id}: {len(events)} events, {records} memory records, {links} links "
        f"in {seconds:.1f} s ({sum(waits):.1f} s waiting for the embedding worker)",
        file=sys.stderr,
    )
    return {
        "events": len(events),
        "memory_records": records,
        "links": links,
        "seconds": round(seconds, 1),
        "embedding_wait_s": round(sum(waits), 1),
    }


def evaluate(
    clients: dict[str, httpx.Client], convs: list[Conversation], ks: list[int]
) -> tuple[dict[str, dict[str, list[Scored]]], dict[str, dict[str, list[float]]]]:
    """Per configuration and mode: the scored questions; per mode: latencies, ms (timed_search).
    Each search embeds its question, as a new question does: its text is its own, the question
    and a number of trailing spaces (the tokenizer and the keyword search drop them: the same
    vector, the same words; the API's query cache keeps the texts apart). Then the turns-only
    hybrid search again (CACHED): its vector from the cache, the graph phase alone."""
    scored: dict[str, dict[str, list[Scored]]] = {c: {m: [] for m in MODES} for c in CONFIGS}
    latency: dict[str, dict[str, list[float]]] = {
        m: {"round_trip": [], "server": [], "embed": [], "graph": []} for m in (*MODES, CACHED)
    }
    questions = [(conv, q) for conv in convs for q in conv.questions if q.evidence]
    for n, (conv, question) in enumerate(questions, start=1):
        client = clients[conv.sample_id]
        for c, (config, types) in enumerate(CONFIGS.items()):
            for m, mode in enumerate(MODES):  # interleaved: load from elsewhere falls on all alike
                text = question.text + " " * (c * len(MODES) + m)
                request = {"text": text, "mode": mode, "k": max(ks), "recordTypes": types}
                found = timed_search(client, request, latency[mode])
                ranked = [retrieved(hit) for hit in found["hits"]]
                recall = {k: recall_at(question.evidence, ranked, k) for k in ks}
                scored[config][mode].append(Scored(question.category, recall))
        again = {"text": question.text + " " * MODES.index("HYBRID"), "mode": "HYBRID"}
        timed_search(
            client, again | {"k": max(ks), "recordTypes": CONFIGS["turns only"]}, latency[CACHED]
        )
        if n % 20 == 0 or n == len(questions):
            print(f"\r  questions: {n}/{len(questions)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return scored, latency


def timed_search(
    client: httpx.Client, request: dict[str, Any], into: dict[str, list[float]]
) -> dict[str, Any]:
    """The search's answer; its latencies (ms) go `into`: round trip; server time of the whole
    search (totalMs); its query embedding; its graph phase (searchMs)."""
    started = time.perf_counter()
    found: dict[str, Any] = gql(client, SEARCH, {"input": request})["search"]
    into["round_trip"].append((time.perf_counter() - started) * 1000)
    into["server"].append(found["totalMs"])
    into["embed"].append(found["embedMs"])
    into["graph"].append(found["searchMs"])
    return found


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return {"p50_ms": round(statistics.median(ordered), 2), "p99_ms": round(p99, 2)}


def table(figures: dict[str, dict[str, dict[str, dict[str, float | int]]]], ks: list[int]) -> None:
    for config, modes in figures.items():
        print(f"\nLoCoMo recall@k, {config} (overall = categories 1-4; cat5 apart)")
        groups = list(next(iter(modes.values())))
        print(f"{'mode':<9}{'group':<9}{'n':>5}" + "".join(f"{f'r@{k}':>8}" for k in ks))
        for mode, by_group in modes.items():
            for group in groups:
                row = by_group[group]
                cells = "".join(f"{row[f'r@{k}']:>8.3f}" for k in ks)
                print(f"{mode.lower():<9}{group:<9}{row['questions']:>5}{cells}")


def latency_table(latencies: dict[str, dict[str, dict[str, float]]]) -> None:
    print("\nsearch latency, ms, p50 / p99 (server: the whole search; graph: searchMs)")
    print(f"{'mode':<24}{'round trip':>16}{'server':>16}{'embedding':>16}{'graph':>16}")
    for mode, kinds in latencies.items():
        pairs = [kinds[kind] for kind in ("round_trip", "server", "embed", "graph")]
        cells = "".join(f"{'{:.1f} / {:.1f}'.format(p['p50_ms'], p['p99_ms']):>16}" for p in pairs)
        print(f"{mode:<24}{cells}")


def versus(
    ours: dict[str, float | int], latency: dict[str, dict[str, float]], mem0: dict[str, Any]
) -> None:
    """Our hybrid search (turns only) against each Mem0 set-up: recall@10 and search p50."""
    print("\nturns only, hybrid vs Mem0: recall@10, search p50 (ours: server / round trip)")
    for setup, theirs in mem0["setups"].items():
        p50 = theirs["search_latency"]["p50_ms"]
        server, round_trip = latency["server"]["p50_ms"], latency["round_trip"]["p50_ms"]
        print(
            f"  {setup:<18} r@10 {ours['r@10']:.3f} vs {theirs['recall']['overall']['r@10']:.3f};"
            f" p50 {server:.1f} / {round_trip:.1f} ms vs {p50:.1f} ms"
            f" ({p50 / server:.1f}x / {p50 / round_trip:.1f}x faster)"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--k", type=int, nargs="+", default=[5, 10, 25])
    parser.add_argument(
        "--embed-timeout", type=float, default=600, help="seconds per wait for the worker"
    )
    parser.add_argument("--no-mem0", action="store_true", help="leave Mem0's rows out")
    parser.add_argument(
        "--reuse",
        metavar="RUN",
        help="search the clients of an earlier run (its id: bench-locomo-RUN-...) instead of "
        "ingesting anew: for trying a search change without waiting for the ingest",
    )
    args = parser.parse_args()
    ks = sorted(set(args.k))
    began = time.perf_counter()
    convs = load(args.data)
    settings = load_settings()
    run = args.reuse or uuid.uuid4().hex[:8]
    keys = {
        conv.sample_id: asyncio.run(
            create_key(
                settings,
                client=f"bench-locomo-{run}-{conv.sample_id}",
                role=Role.AGENT,
                agent_name="bench",
            )
        ).secret
        for conv in convs
    }
    port = free_port()
    clients = {
        sample: httpx.Client(
            base_url=f"http://127.0.0.1:{port}",
            headers={"Authorization": f"Bearer {key}"},
            timeout=120,
        )
        for sample, key in keys.items()
    }
    print(f"ingesting {len(convs)} conversations from {args.data}", file=sys.stderr)
    started = time.perf_counter()
    sizes: dict[str, dict[str, Any]] = {conv.sample_id: {"reused run": run} for conv in convs}
    if not args.reuse:
        with serving(port):
            sizes = {
                conv.sample_id: ingest(clients[conv.sample_id], conv, args.embed_timeout)
                for conv in convs
            }
    ingest_s = time.perf_counter() - started
    with serving(port, env=SEARCHING):
        scored, latency = evaluate(clients, convs, ks)
    figures = {
        config: {mode.lower(): by_category(rows, ks) for mode, rows in modes.items()}
        for config, modes in scored.items()
    }
    table(figures, ks)
    latencies = {
        mode.lower(): {what: percentiles(values) for what, values in kinds.items()}
        for mode, kinds in latency.items()
    }
    mem0 = None if args.no_mem0 else measure_mem0(args.data, ks)
    if mem0 is not None:
        print("\nMem0, turns only, same file and metric (search in-process)")
        print(mem0_table(mem0, ks))
        versus(figures["turns only"]["hybrid"]["overall"], latencies["hybrid"], mem0)
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        neo4j_server = driver.get_server_info().agent
    document: dict[str, Any] = {
        "benchmark": "locomo",
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "data": str(args.data),
        "machine": machine(),
        "versions": versions(neo4j_server) | {"embedding_model": settings.embedding_model},
        "sizes": {
            "conversations": sizes,
            "questions_scored": len(next(iter(scored.values()))["HYBRID"]),
            "ingest_with_indexing_s": round(ingest_s, 1),
            "total_s": round(time.perf_counter() - began, 1),
        },
        "configurations": {c: [t.lower() for t in types] for c, types in CONFIGS.items()},
        "recall": figures,
        "search_latency": latencies,
        "mem0": mem0,
        "peers": PEERS,
    }
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "locomo.json"
    path.write_text(json.dumps(document, indent=2) + "\n")
    latency_table(latencies)
    print(f"run {run}: total {document['sizes']['total_s']} s; wrote {path}")


if __name__ == "__main__":
    main()
