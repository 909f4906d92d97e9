"""Benchmark: one plan by id through HTTP GraphQL versus one hand-written Cypher query.

Run: bash app/services/env.sh bench plan_read [--runs N]   (local servers must be up)
The two cases take turns call by call (bench._common.timed_rounds).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

import httpx
from neo4j import GraphDatabase

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.cli.admin import create_key  # noqa: E402
from app.model.enums import Role  # noqa: E402
from app.settings import load_settings  # noqa: E402
from bench._common import free_port, report, serve_api, summary, timed_rounds  # noqa: E402

HAND_WRITTEN = "MATCH (p:Plan {id: $id, client_id: $client_id}) RETURN p {.*} AS plan"
GRAPHQL = "query($id: ID!) { plan(id: $id) { id name status summary createdAt updatedAt } }"
CREATE = "mutation($i: CreatePlanInput!) { createPlan(input: $i) { id } }"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--plans", type=int, default=200, help="plans in the client")
    parser.add_argument("--port", type=int, default=0, help="API port (0: a free one)")
    args = parser.parse_args()
    settings = load_settings()
    issued = asyncio.run(
        create_key(settings, client="bench-plan-read", role=Role.AGENT, agent_name="bench")
    )
    # As in bench/lineage.py: no embedding of other clients' records in the API under test.
    os.environ.setdefault("AGENTMEM_EMBEDDING_WORKER_IN_PROCESS", "false")
    args.port = args.port or free_port()
    server = serve_api(args.port)
    http = httpx.Client(
        base_url=f"http://127.0.0.1:{args.port}",
        headers={"Authorization": f"Bearer {issued.secret}"},
    )
    plan_inputs = {"name": "bench plan", "createdBy": "AGENT", "summary": "x" * 200}
    ids = []
    for n in range(args.plans):
        body = http.post("/graphql", json={"query": CREATE, "variables": {"i": plan_inputs}}).json()
        ids.append(body["data"]["createPlan"]["id"])
        if (n + 1) % max(1, args.plans // 10) == 0:
            print(f"\r  seeding plans: {n + 1}/{args.plans}", end="", file=sys.stderr)
    print(file=sys.stderr)
    target = ids[len(ids) // 2]
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        server_version = driver.get_server_info().agent

        def graphql() -> None:
            body = http.post(
                "/graphql", json={"query": GRAPHQL, "variables": {"id": target}}
            ).json()
            assert body["data"]["plan"]["id"] == target

        def cypher() -> None:
            records, _, _ = driver.execute_query(
                HAND_WRITTEN,
                {"id": target, "client_id": issued.principal.client_id},
                database_=settings.neo4j_database,
            )
            assert records[0]["plan"]["id"] == target

        cases = {"driver, hand-written Cypher": cypher, "HTTP GraphQL plan(id)": graphql}
        samples = timed_rounds(cases, runs=args.runs, warmup=50, label="cases in turn")
        rows = {name: summary(values) for name, values in samples.items()}
    server.terminate()
    server.wait(timeout=30)
    ratio = (
        rows["HTTP GraphQL plan(id)"]["median_ms"]
        / rows["driver, hand-written Cypher"]["median_ms"]
    )
    report(
        "plan_read",
        sizes={"plans_in_client": args.plans, "runs": args.runs},
        rows=rows,
        ratios={"graphql_over_cypher_median": round(ratio, 2)},
        neo4j_server=server_version,
    )


if __name__ == "__main__":
    main()
