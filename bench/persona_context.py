"""Benchmark: personaContext (seed 003's composite prompt) through HTTP GraphQL against its one
hand-written Cypher read (app/domain/personas/cypher.py CONTEXT) through the driver, on a new
client holding one persona with N long-term facts about the subject, S summarised sessions
and P procedures; plus the fixed cost of any GraphQL request (`{ __typename }`).

Run: bash app/services/env.sh bench persona_context [--facts 200] [--sessions 20]
     [--procedures 10] [--budget 2000] [--runs 200]
(local servers up). The cases take turns call by call in a shuffled order
(bench._common.timed_rounds), so load from elsewhere hits GraphQL and its baseline alike.
What GraphQL adds over the read is HTTP, the key check, the access log entry, packing the
lines into the budget and the JSON answer.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import uuid
from pathlib import Path
from typing import Any

from neo4j import GraphDatabase

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.cli.admin import create_key  # noqa: E402
from app.domain.personas.context import check_request, read_params  # noqa: E402
from app.domain.personas.cypher import CONTEXT  # noqa: E402
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

PERSONA = "brad"
SUBJECT = "alice"
QUERY = """query($b: Int!) { personaContext(subject: "alice", persona: "brad", tokenBudget: $b) {
  prompt tokensUsed omitted usedIds sections { section tokens lines { text recordId } } } }"""
SEED = {
    "persona": """mutation { createPersona(input: {name: "brad",
      systemPrompt: "You are Brad, decisive and direct.",
      traits: {humor: "dry", empathy: "medium-high"},
      behaviouralRules: ["Always be decisive", "Give practical solutions"]}) { id } }""",
    "subject": """mutation { upsertSubject(input: {externalRef: "alice",
      displayName: "Alice"}) { id } }""",
    "relationship": """mutation { setRelationship(input: {subject: "alice", agentName: "brad",
      type: "bro", customPrompt: "You call her dude.",
      memorySettings: {auto_recall_depth: 10}}) { type } }""",
    "fact": """mutation($i: Int!, $t: String!) { remember(input: {kind: SEMANTIC, priority: $i,
      namespace: {subject: "alice", agent: "brad"}, text: $t}) { id } }""",
    "procedure": """mutation($n: String!, $t: String!) { putProcedure(input: {agent: "brad",
      name: $n, procedureType: TEMPLATE, text: $t}) { id } }""",
    "start": """mutation { startSession(input: {agent: "brad", subject: "alice"}) {
      session { id } } }""",
    "entry": """mutation($s: ID!, $t: String!) { putSessionEntry(input: {sessionId: $s,
      text: $t, speaker: "alice"}) { id } }""",
    "end": "mutation($s: ID!) { endSession(id: $s) { summary { id } } }",
}


def seed(client: GraphQLClient, facts: int, sessions: int, procedures: int) -> None:
    """The persona's world on a new client, through the API as a caller would write it."""
    for name in ("persona", "subject", "relationship"):
        client.post(SEED[name])
    for n in range(facts):
        text = f"Fact {n}: Alice mentioned topic {n % 37} on a call about plan {n}."
        client.post(SEED["fact"], {"i": 1 + n % 10, "t": text})
    for n in range(procedures):
        client.post(SEED["procedure"], {"n": f"pattern-{n}", "t": f"Say it like Brad, way {n}."})
    for n in range(sessions):
        session = client.post(SEED["start"])["data"]["startSession"]["session"]["id"]
        for turn in range(3):
            client.post(SEED["entry"], {"s": session, "t": f"Call {n}, turn {turn}: work stuff"})
        client.post(SEED["end"], {"s": session})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--facts", type=int, default=200)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--procedures", type=int, default=10)
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--port", type=int, default=0, help="API port (0: a free one)")
    args = parser.parse_args()
    settings = load_settings()
    port = args.port or free_port()
    # The records seeded here are not embedded while the reads are timed.
    os.environ.setdefault("AGENTMEM_EMBEDDING_WORKER_IN_PROCESS", "false")
    name = f"bench-persona-{uuid.uuid4().hex[:8]}"
    key = asyncio.run(create_key(settings, client=name, role=Role.REVIEWER, agent_name=None))
    client_id = key.principal.client_id
    server = serve_api(port)
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    try:
        thin = GraphQLClient(port, key.secret)
        seed(thin, args.facts, args.sessions, args.procedures)
        answer = thin.post(QUERY, {"b": args.budget})["data"]["personaContext"]
        request = check_request(SUBJECT, PERSONA, args.budget, None)
        with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
            server_version = driver.get_server_info().agent
            db = settings.neo4j_database

            def cypher() -> Any:
                params = read_params(client_id, request)
                return driver.execute_query(CONTEXT, params, database_=db)

            cases = {
                "personaContext GraphQL": lambda: thin.post(QUERY, {"b": args.budget}),
                "personaContext Cypher": cypher,
                "floor: GraphQL { __typename }": lambda: thin.post("{ __typename }"),
            }
            samples = timed_rounds(cases, runs=args.runs, warmup=20, label="personaContext")
        thin.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    rows = {case: summary(values) for case, values in samples.items()}
    ratios = {
        "personaContext GraphQL/Cypher p50": round(
            rows["personaContext GraphQL"]["median_ms"]
            / rows["personaContext Cypher"]["median_ms"],
            2,
        )
    }
    sizes: dict[str, Any] = {
        "facts": args.facts,
        "sessions": args.sessions,
        "procedures": args.procedures,
        "token_budget": args.budget,
        "tokens_used": answer["tokensUsed"],
        "lines_omitted": answer["omitted"],
        "ids_used": len(answer["usedIds"]),
    }
    report("persona_context", sizes=sizes, rows=rows, ratios=ratios, neo4j_server=server_version)


if __name__ == "__main__":
    main()
