"""Benchmark: lineage, trace (also with the constraint document versions its snapshot froze,
content included) and a three-level nested selection through HTTP GraphQL, against the same
reads as one hand-written Cypher query through the driver, and against naive per-field
resolution (one query per field per parent), at two graph sizes in one run.

Run: bash app/services/env.sh bench lineage [--small 100] [--large 1000] [--runs 200]
(local servers up; the demo clients are generated on first use and reused afterwards).
Each comparison (a GraphQL read and its Cypher baseline, for both clients) is timed on its own,
its cases taking turns call by call in a shuffled order (bench._common.timed_rounds), so that
load from elsewhere on a shared machine hits GraphQL and its baseline, and both sizes, alike.

GraphQL goes through a thin keep-alive HTTP client (bench._common.GraphQLClient; bench
plan_read shows what httpx adds). Two floors show the fixed cost of any request: GET /healthz
(HTTP and middleware) and `{ __typename }` (plus the API key check and GraphQL execution, no
Cypher).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from neo4j import Driver, GraphDatabase

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.cli.admin import create_key  # noqa: E402
from app.demo.generator import generate_demo  # noqa: E402
from app.domain.keys import ensure_client  # noqa: E402
from app.graph.cypher_files import api_params, named_query  # noqa: E402
from app.model.enums import ConstraintKind, Role  # noqa: E402
from app.runtime import connected  # noqa: E402
from app.settings import Settings, load_settings  # noqa: E402
from bench._common import (  # noqa: E402
    GraphQLClient,
    free_port,
    report,
    serve_api,
    summary,
    timed_rounds,
)

UPSTREAM = "query($id: ID!) { upstream(id: $id) { startId assets { id } ancestors { id title } plans { id } snapshots { id } prompts { id } approvals { id status } } }"  # noqa: E501
TRACE = "query($id: ID!) { trace(variantId: $id) { variant { id } asset { id } blueprint { id } ancestors { id } plan { id } snapshot { id } prompts { id } approvals { id } runs { run { id } evidence { uri } } } }"  # noqa: E501
TRACE_FROZEN = "query($id: ID!) { trace(variantId: $id) { variant { id } asset { id } blueprint { id } ancestors { id } plan { id } snapshot { id } constraints { id kind version content } prompts { id } approvals { id } runs { run { id } evidence { uri } } } }"  # noqa: E501
NESTED = "query($id: ID!) { plan(id: $id) { id name nodes { id title assets { id title variants { id platform status } } } } }"  # noqa: E501
NESTED_CYPHER = """
MATCH (p:Plan {id: $id, client_id: $client_id})
RETURN p {.id, .name, nodes: [(p)-[:HAS_NODE]->(n:PlanNode) | n {.id, .title,
  assets: [(n)<-[:FROM_BLUEPRINT]-(a:Asset) | a {.id, .title,
    variants: [(a)-[:HAS_VARIANT]->(v:AssetVariant) | v {.id, .platform, .status}]}]}]} AS plan
"""
NAIVE = {
    "plan": "MATCH (p:Plan {id: $id, client_id: $client_id}) RETURN p.id AS id, p.name AS name",
    "nodes": "MATCH (:Plan {id: $id, client_id: $client_id})-[:HAS_NODE]->(n) "
    "RETURN n.id AS id, n.title AS title",
    "assets": "MATCH (:PlanNode {id: $id, client_id: $client_id})<-[:FROM_BLUEPRINT]-(a) "
    "RETURN a.id AS id, a.title AS title",
    "variants": "MATCH (:Asset {id: $id, client_id: $client_id})-[:HAS_VARIANT]->(v) "
    "RETURN v.id AS id, v.platform AS platform, v.status AS status",
}
SAMPLE = """
MATCH (pk:PublishPackage {client_id: $client_id})-[:HAS_RUN]->(:PublishRun),
      (pk)-[:INCLUDES]->(v:AssetVariant)
WITH v LIMIT 1
MATCH (a:Asset)-[:HAS_VARIANT]->(v), (a)-[:FROM_BLUEPRINT]->(:PlanNode)<-[:HAS_NODE]-(p:Plan)
RETURN v.id AS variant, p.id AS plan
"""


async def prepare(settings: Settings, name: str, plans: int) -> tuple[str, int]:
    """The client id of a demo client of `plans` plans (generated once), and its node count."""
    async with connected(settings) as graph:
        client_id = await ensure_client(graph, name=name)
        rows = await graph.read(
            "MATCH (n:Plan {client_id: $c}) RETURN count(n) AS plans", {"c": client_id}
        )
        if rows[0]["plans"] < plans:
            print(f"generating {name} ({plans} plans) ...", file=sys.stderr)
            await generate_demo(graph, None, client_id=client_id, plans=plans, progress=True)
        total = await graph.read("MATCH (n {client_id: $c}) RETURN count(n) AS n", {"c": client_id})
        return client_id, int(total[0]["n"])


def naive_nested(driver: Driver, database: str, client_id: str, plan_id: str) -> dict[str, Any]:
    def run(kind: str, record_id: str) -> list[dict[str, Any]]:
        records, _, _ = driver.execute_query(
            NAIVE[kind], {"id": record_id, "client_id": client_id}, database_=database
        )
        return [r.data() for r in records]

    plan = run("plan", plan_id)[0]
    plan["nodes"] = run("nodes", plan_id)
    for node in plan["nodes"]:
        node["assets"] = run("assets", node["id"])
        for asset in node["assets"]:
            asset["variants"] = run("variants", asset["id"])
    return plan


@dataclass
class Subject:
    """One demo client under test, with its API key's HTTP client and sample records."""

    tag: str
    plans: int
    client_id: str
    nodes: int
    thin: GraphQLClient
    variant: str
    plan: str


def comparisons(settings: Settings, driver: Driver, subject: Subject) -> list[dict[str, Any]]:
    """The cases of one client, grouped by what is compared with what."""
    db, thin = settings.neo4j_database, subject.thin
    variant, plan = subject.variant, subject.plan

    def gql(query: str, record_id: str) -> Any:
        return lambda: thin.post(query, {"id": record_id})

    def cypher(query: str, record_id: str) -> Any:
        params = api_params({"id": record_id, "client_id": subject.client_id})
        return lambda: driver.execute_query(query, params, database_=db)

    return [
        {
            "upstream GraphQL": gql(UPSTREAM, variant),
            "upstream Cypher": cypher(named_query("upstream"), variant),
        },
        {
            "trace GraphQL": gql(TRACE, variant),
            "trace Cypher": cypher(named_query("trace"), variant),
        },
        {
            "trace+constraints GraphQL": gql(TRACE_FROZEN, variant),
            "trace+constraints Cypher": cypher(named_query("trace"), variant),
        },
        {
            "nested GraphQL": gql(NESTED, plan),
            "nested Cypher": cypher(NESTED_CYPHER, plan),
        },
        {
            "floor: GET /healthz": lambda: thin.get("/healthz"),
            "floor: GraphQL { __typename }": lambda: thin.post("{ __typename }"),
        },
        # Last: the API's keep-alive connections time out while it runs (5 s).
        {"nested naive per-field": lambda: naive_nested(driver, db, subject.client_id, plan)},
    ]


def measure(
    settings: Settings, driver: Driver, subjects: list[Subject], runs: int
) -> dict[str, dict[str, float]]:
    """Each comparison is timed on its own, for both clients at once, its cases taking turns
    call by call: the API then serves a request every few milliseconds, as under steady load,
    and a slow spell of the machine hits both sizes alike. Spread over every case in one
    rotation (the 40-60 ms naive case included), the API would sit idle between its requests
    and each request would first pay for cold CPU caches that no production load shows."""
    per_subject = [comparisons(settings, driver, subject) for subject in subjects]
    samples: dict[str, list[float]] = {}
    count = len(per_subject[0])
    for number in range(count):
        cases = {
            f"{subject.tag}: {name}": call
            for subject, groups in zip(subjects, per_subject, strict=True)
            for name, call in groups[number].items()
        }
        label = f"comparison {number + 1}/{count}"
        samples |= timed_rounds(cases, runs=runs, warmup=20, label=label)
    return {name: summary(values) for name, values in samples.items()}


def subject(settings: Settings, driver: Driver, tag: str, plans: int, port: int) -> Subject:
    # v2: demo clients with constraint documents frozen by their snapshots (issue 14); an
    # earlier client of the same size lacks them and cannot be given them.
    name = f"bench-lineage-{plans}-v2"
    client_id, nodes = asyncio.run(prepare(settings, name, plans))
    key = asyncio.run(create_key(settings, client=name, role=Role.ANALYST, agent_name=None))
    sample = driver.execute_query(SAMPLE, {"client_id": client_id}).records[0]
    traced = driver.execute_query(
        named_query("trace"), api_params({"id": sample["variant"], "client_id": client_id})
    ).records[0]
    if len(traced["constraints"]) != len(ConstraintKind):
        raise RuntimeError(
            f"{name}: the sample's trace froze {len(traced['constraints'])} "
            f"constraint versions, not {len(ConstraintKind)}"
        )
    return Subject(
        tag=tag,
        plans=plans,
        client_id=client_id,
        nodes=nodes,
        thin=GraphQLClient(port, key.secret),
        variant=sample["variant"],
        plan=sample["plan"],
    )


WHATS = ("upstream", "trace", "trace+constraints", "nested")


def ratios_of(rows: dict[str, dict[str, float]]) -> dict[str, float]:
    def ratio(top: str, bottom: str) -> float:
        return round(rows[top]["median_ms"] / rows[bottom]["median_ms"], 2)

    ratios = {}
    for tag in ("small", "large"):
        for what in WHATS:
            ratios[f"{tag} {what} GraphQL/Cypher p50"] = ratio(
                f"{tag}: {what} GraphQL", f"{tag}: {what} Cypher"
            )
        ratios[f"{tag} nested naive/GraphQL p50"] = ratio(
            f"{tag}: nested naive per-field", f"{tag}: nested GraphQL"
        )
    for what in WHATS:
        ratios[f"{what} GraphQL large/small p50"] = ratio(
            f"large: {what} GraphQL", f"small: {what} GraphQL"
        )
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--small", type=int, default=100, help="plans in the small client")
    parser.add_argument("--large", type=int, default=1000, help="plans in the large client")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--port", type=int, default=0, help="API port (0: a free one)")
    args = parser.parse_args()
    settings = load_settings()
    args.port = args.port or free_port()
    # The API under test does not embed other clients' records meanwhile (the embedding worker
    # runs as its own process in this benchmark): that work is no part of a read.
    os.environ.setdefault("AGENTMEM_EMBEDDING_WORKER_IN_PROCESS", "false")
    server = serve_api(args.port)
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    try:
        with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
            version = driver.get_server_info().agent
            sized = (("small", args.small), ("large", args.large))
            subjects = [subject(settings, driver, tag, n, args.port) for tag, n in sized]
            sizes = {one.tag: {"plans": one.plans, "client_nodes": one.nodes} for one in subjects}
            rows = measure(settings, driver, subjects, args.runs)
            for one in subjects:
                one.thin.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    report("lineage", sizes=sizes, rows=rows, ratios=ratios_of(rows), neo4j_server=version)


if __name__ == "__main__":
    main()
