"""Benchmark: the cross-agent traversals (lessonsFromAgentOnPlatform, contradictions,
episodesCausingFailure) and the k-hop neighbourhood through HTTP GraphQL, against the same
Cypher files run directly through the driver, on a demo client of 100k+ records with agents,
episodes, metrics, engagement events, lessons and MemoryLinks added by bulk Cypher.

Run: bash app/services/env.sh bench traversals [--plans 1000] [--runs 200]
(local servers up; the client is generated on first use and reused afterwards)
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from neo4j import Driver, GraphDatabase

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.cli.admin import create_key  # noqa: E402
from app.demo.generator import generate_demo  # noqa: E402
from app.domain.keys import ensure_client  # noqa: E402
from app.domain.lessons import record_query  # noqa: E402
from app.graph.cypher_files import api_params, named_query  # noqa: E402
from app.graph.identifiers import cypher_label  # noqa: E402
from app.model.enums import Role  # noqa: E402
from app.runtime import connected  # noqa: E402
from app.settings import Settings, load_settings  # noqa: E402
from bench._common import free_port, report, serve_api, summary, timed  # noqa: E402

AGENTS = ["planner", "creator", "publisher", "engager", "analyst"]
BATCH = 5_000
FROM_AGENT = "query($a: String!, $p: Platform!) { lessonsFromAgentOnPlatform(agentName: $a, platform: $p, first: 50) { agent { id } total lessons { lesson { id statement confidence } derivedFrom { episode { id } via assets { id } } evidenceMetrics { id value } evidenceEpisodes { id } } } }"  # noqa: E501
CONTRADICTIONS = "query($id: ID!) { contradictions(lessonId: $id) { lesson { id } links { linkId relation direction other { id label title } } supersededBy { id } lessons { id statement } } }"  # noqa: E501
CAUSES = "query($id: ID!) { episodesCausingFailure(engagementEventId: $id) { event { id result } failed episodes { episode { id status } agent { name } via causedLinkIds } } }"  # noqa: E501
NEIGHBOURHOOD = "query($id: ID!) { neighbourhood(id: $id, hops: 2, first: 200) { start { id } records { distance record { id label title } } links { linkId relation fromId toId } } }"  # noqa: E501
ALL_RELATIONS = ["SUPPORTS", "CONTRADICTS", "CAUSED", "DERIVED_FROM", "VALIDATES"]

AGENTS_CYPHER = """
UNWIND $names AS name
CREATE (:Agent {id: randomUUID(), client_id: $c, name: name, created_at: datetime(),
                updated_at: datetime()})
"""
EPISODES_CYPHER = """
UNWIND $rows AS row
MATCH (agent:Agent {client_id: $c, name: row.agent})
CREATE (agent)-[:RAN]->(ep:AgentEpisode {id: row.id, client_id: $c, agent_name: row.agent,
        task_class: 'creative', trigger: 'planner_tick', status: row.status,
        output_summary: 'bench episode', created_at: row.at, updated_at: row.at})
WITH ep, row
CALL (ep, row) { UNWIND row.read AS a MATCH (x:Asset {id: a}) CREATE (ep)-[:READ]->(x) }
CALL (ep, row) { UNWIND row.wrote AS a MATCH (x:Asset {id: a}) CREATE (ep)-[:WROTE]->(x) }
"""
METRICS_CYPHER = """
UNWIND $rows AS row
MATCH (v:AssetVariant {id: row.variant})
CREATE (:PerformanceMetric {id: row.id, client_id: $c, platform: v.platform,
        variant_id: v.id, asset_id: v.asset_id, metric_type: 'saves', value: row.value,
        window_start: row.at, window_end: row.at + duration({days: 7}),
        created_at: row.at, updated_at: row.at})-[:MEASURES]->(v)
"""
EVENTS_CYPHER = """
UNWIND $rows AS row
MATCH (ep:AgentEpisode {id: row.episode})
CREATE (ep)-[:WROTE]->(:EngagementEvent {id: row.id, client_id: $c, platform: row.platform,
        event_kind: 'comment_reply', actor: 'ai', result: row.result,
        failure_reason: CASE row.result WHEN 'fail' THEN 'rate_limited' END,
        created_at: row.at, updated_at: row.at})
"""
LESSONS_CYPHER = """
UNWIND $rows AS row
CREATE (l:Lesson {id: row.id, client_id: $c, scope: 'platform', lesson_type: row.type,
        statement: row.statement, confidence: row.confidence, decay_half_life_days: 30.0,
        last_evidence_at: row.at, valid_from: row.at, retired: false,
        evidence_refs: '{}', created_at: row.at, updated_at: row.at})
WITH l, row
CALL (l, row) {
  UNWIND row.episodes AS e MATCH (x:AgentEpisode {id: e}) CREATE (l)-[:EVIDENCED_BY]->(x)
}
CALL (l, row) {
  UNWIND row.metrics AS m MATCH (x:PerformanceMetric {id: m}) CREATE (l)-[:EVIDENCED_BY]->(x)
}
"""
LINKS_CYPHER = """
UNWIND $rows AS row
MATCH (a:{a} {{id: row.from}}) WHERE a.client_id = $c
MATCH (b:{b} {{id: row.to}}) WHERE b.client_id = $c
CREATE (a)-[r:$(row.type)]->(b)
SET r.link_id = row.id, r.client_id = $c, r.author = 'agent:bench', r.created_at = row.at
"""
SAMPLES = """
CALL () {
  MATCH (l:Lesson {client_id: $c})-[r:CONTRADICTS]-() WITH l, count(r) AS n
  ORDER BY n DESC LIMIT 1 RETURN l.id AS contradicted
}
CALL () {
  MATCH (:AgentEpisode {client_id: $c})-[:CAUSED]->(e:EngagementEvent {result: 'fail'})
  RETURN e.id AS failed_event LIMIT 1
}
CALL () {
  MATCH (l:Lesson {client_id: $c})-[r:SUPPORTS|CONTRADICTS|CAUSED|DERIVED_FROM|VALIDATES]-()
  WITH l, count(r) AS n ORDER BY n DESC LIMIT 1 RETURN l.id AS hub
}
RETURN contradicted, failed_event, hub
"""


def uid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def run_batches(driver: Driver, query: str, rows: list[dict[str, Any]], client_id: str) -> None:
    for start in range(0, len(rows), BATCH):
        driver.execute_query(query, {"rows": rows[start : start + BATCH], "c": client_id})


def add_memory(driver: Driver, client_id: str, *, episodes: int, seed: int = 11) -> int:
    """Agents, episodes, metrics, events, lessons and links; returns the nodes added."""
    rng = random.Random(seed)
    now = datetime.now(UTC)

    def ago(days: int) -> datetime:
        return now - timedelta(days=rng.uniform(0, days))

    assets = [
        r["id"]
        for r in driver.execute_query(
            "MATCH (a:Asset {client_id: $c}) RETURN a.id AS id ORDER BY id", {"c": client_id}
        ).records
    ]
    variants = [
        r["id"]
        for r in driver.execute_query(
            "MATCH (v:AssetVariant {client_id: $c}) RETURN v.id AS id ORDER BY id", {"c": client_id}
        ).records
    ]
    driver.execute_query(AGENTS_CYPHER, {"names": AGENTS, "c": client_id})
    eps: list[dict[str, Any]] = [
        {
            "id": uid(rng),
            "agent": rng.choice(AGENTS),
            "at": ago(90),
            "status": "failed" if rng.random() < 0.1 else "success",
            "read": rng.sample(assets, 2),
            "wrote": rng.sample(assets, 1),
        }
        for _ in range(episodes)
    ]
    run_batches(driver, EPISODES_CYPHER, eps, client_id)
    metrics: list[dict[str, Any]] = [
        {
            "id": uid(rng),
            "variant": rng.choice(variants),
            "value": float(rng.randint(1, 500)),
            "at": ago(60),
        }
        for _ in range(episodes)
    ]
    run_batches(driver, METRICS_CYPHER, metrics, client_id)
    events: list[dict[str, Any]] = [
        {
            "id": uid(rng),
            "episode": rng.choice(eps)["id"],
            "at": ago(60),
            "platform": rng.choice(["ig", "fb", "tiktok"]),
            "result": "fail" if rng.random() < 0.2 else "success",
        }
        for _ in range(episodes // 2)
    ]
    run_batches(driver, EVENTS_CYPHER, events, client_id)
    lessons: list[dict[str, Any]] = [
        {
            "id": uid(rng),
            "type": rng.choice(["what_worked", "what_failed"]),
            "statement": f"bench lesson {n}",
            "confidence": rng.uniform(0.3, 0.95),
            "at": ago(60),
            "episodes": [e["id"] for e in rng.sample(eps, 2)],
            "metrics": [rng.choice(metrics)["id"]],
        }
        for n in range(episodes // 3)
    ]
    run_batches(driver, LESSONS_CYPHER, lessons, client_id)
    failed = [e for e in events if e["result"] == "fail"]

    def link(kind: str, a: tuple[str, list[str]], b: tuple[str, list[str]], n: int) -> None:
        rows = [
            {
                "id": uid(rng),
                "type": kind,
                "from": rng.choice(a[1]),
                "to": rng.choice(b[1]),
                "at": ago(30),
            }
            for _ in range(n)
        ]
        query = LINKS_CYPHER.format(a=cypher_label(a[0]), b=cypher_label(b[0]))
        run_batches(driver, query, [r for r in rows if r["from"] != r["to"]], client_id)

    lesson_ids = ("Lesson", [x["id"] for x in lessons])
    episode_ids = ("AgentEpisode", [e["id"] for e in eps])
    link("DERIVED_FROM", lesson_ids, episode_ids, len(lessons))
    link("SUPPORTS", lesson_ids, lesson_ids, len(lessons) // 2)
    link("CONTRADICTS", lesson_ids, lesson_ids, len(lessons) // 2)
    link("CAUSED", episode_ids, ("EngagementEvent", [e["id"] for e in failed]), len(failed) // 2)
    link("VALIDATES", ("Asset", assets), lesson_ids, len(lessons) // 2)
    return len(AGENTS) + len(eps) + len(metrics) + len(events) + len(lessons)


async def prepare(settings: Settings, name: str, plans: int) -> str:
    """The id of a demo client of `plans` plans (generated once, without S3 artifacts)."""
    async with connected(settings) as graph:
        client_id = await ensure_client(graph, name=name)
        rows = await graph.read(
            "MATCH (n:Plan {client_id: $c}) RETURN count(n) AS plans", {"c": client_id}
        )
        if rows[0]["plans"] < plans:
            print(f"generating {name} ({plans} plans) ...", file=sys.stderr)
            await generate_demo(graph, None, client_id=client_id, plans=plans, progress=True)
        return client_id


def sizes(driver: Driver, client_id: str) -> dict[str, int]:
    nodes = driver.execute_query(
        "MATCH (n {client_id: $c}) RETURN count(n) AS n", {"c": client_id}
    ).records[0]["n"]
    links = driver.execute_query(
        "MATCH (n:Lesson|AgentEpisode|Asset {client_id: $c})"
        "-[r:SUPPORTS|CONTRADICTS|CAUSED|DERIVED_FROM|VALIDATES]->() RETURN count(r) AS n",
        {"c": client_id},
    ).records[0]["n"]
    counts = {"client_nodes": int(nodes), "memory_links": int(links)}
    for label in ("Agent", "AgentEpisode", "Lesson", "PerformanceMetric", "EngagementEvent"):
        query = f"MATCH (n:{cypher_label(label)} {{client_id: $c}}) RETURN count(n) AS n"
        counts[label] = int(driver.execute_query(query, {"c": client_id}).records[0]["n"])
    return counts


def measure(
    settings: Settings, driver: Driver, http: httpx.Client, client_id: str, runs: int
) -> dict[str, dict[str, float]]:
    sample = driver.execute_query(SAMPLES, {"c": client_id}).records[0]
    db = settings.neo4j_database

    def gql(query: str, variables: dict[str, Any]) -> Any:
        def call() -> None:
            body = http.post("/graphql", json={"query": query, "variables": variables})
            assert "errors" not in body.json(), body.text

        return call

    def cypher(query: str, params: dict[str, Any]) -> Any:
        scoped = api_params(params | {"client_id": client_id})
        return lambda: driver.execute_query(query, scoped, database_=db)

    agent = {"agent_name": "creator", "platform": "ig", "first": 50}
    hood = {"id": sample["hub"], "hops": 2, "relations": ALL_RELATIONS, "labels": None}
    cases = {
        "lessonsFromAgentOnPlatform GraphQL": gql(FROM_AGENT, {"a": "creator", "p": "IG"}),
        "lessonsFromAgentOnPlatform Cypher": cypher(
            named_query("lessons_from_agent_platform"), agent
        ),
        "contradictions GraphQL": gql(CONTRADICTIONS, {"id": sample["contradicted"]}),
        "contradictions Cypher": cypher(
            named_query("contradictions"), {"id": sample["contradicted"]}
        ),
        "episodesCausingFailure GraphQL": gql(CAUSES, {"id": sample["failed_event"]}),
        "episodesCausingFailure Cypher": cypher(
            named_query("episodes_causing_failure"), {"id": sample["failed_event"]}
        ),
        "neighbourhood GraphQL": gql(NEIGHBOURHOOD, {"id": sample["hub"]}),
        "neighbourhood Cypher": cypher(record_query("neighbourhood"), hood | {"first": 200}),
    }
    return {
        name: summary(timed(fn, runs=runs, warmup=20, label=name)) for name, fn in cases.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--plans", type=int, default=1000, help="demo plans (~106 nodes each)")
    parser.add_argument("--episodes", type=int, default=10_000, help="episodes added once")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--port", type=int, default=0, help="API port (0: a free one)")
    args = parser.parse_args()
    port = args.port or free_port()
    settings = load_settings()
    name = f"bench-traversals-{args.plans}"
    client_id = asyncio.run(prepare(settings, name, args.plans))
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        version = driver.get_server_info().agent
        agents = "MATCH (a:Agent {client_id: $c}) RETURN count(a) AS n"
        if driver.execute_query(agents, {"c": client_id}).records[0]["n"] == 0:
            print("adding agents, episodes, metrics, events, lessons, links ...", file=sys.stderr)
            add_memory(driver, client_id, episodes=args.episodes)
        counts = sizes(driver, client_id)
        key = asyncio.run(create_key(settings, client=name, role=Role.ANALYST, agent_name=None))
        server = serve_api(port)
        try:
            http = httpx.Client(
                base_url=f"http://127.0.0.1:{port}",
                headers={"Authorization": f"Bearer {key.secret}"},
                timeout=60,
            )
            rows = measure(settings, driver, http, client_id, args.runs)
        finally:
            server.terminate()
            server.wait(timeout=30)
    ratios = {}
    for what in (
        "lessonsFromAgentOnPlatform",
        "contradictions",
        "episodesCausingFailure",
        "neighbourhood",
    ):
        for stat, label in (("median_ms", "p50"), ("p99_ms", "p99")):
            ratios[f"{what} GraphQL/Cypher {label}"] = round(
                rows[f"{what} GraphQL"][stat] / rows[f"{what} Cypher"][stat], 2
            )
    report(
        "traversals",
        sizes={"plans": args.plans, "episodes_added": args.episodes} | counts,
        rows=rows,
        ratios=ratios,
        neo4j_server=version,
    )


if __name__ == "__main__":
    main()
