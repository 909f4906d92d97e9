"""Benchmark: episode replay and episode tree through HTTP GraphQL, against the same Cypher
(cypher/queries/replay.cypher, episode_tree.cypher) run directly through the driver, on a demo
client of ~100k records with ~2,000 agent episodes (trees of root -> 2 children -> 2
grandchildren; each episode READ 3 plan nodes and 2 assets and WROTE 1 asset and 1 plan node).

Run: bash app/services/env.sh bench replay [--plans 1000] [--trees 400] [--runs 300]
(local servers up; the client and its episodes are generated on first use and reused).
The four cases run interleaved, one call each per round, so that load from other processes
falls on all of them alike.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from neo4j import Driver, GraphDatabase

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.cli.admin import create_key  # noqa: E402
from app.demo.generator import generate_demo  # noqa: E402
from app.domain.keys import ensure_client  # noqa: E402
from app.graph.cypher_files import api_params, named_query  # noqa: E402
from app.model.enums import Role  # noqa: E402
from app.runtime import connected  # noqa: E402
from app.settings import Settings, load_settings  # noqa: E402
from bench._common import free_port, report, serve_api, summary  # noqa: E402

EPISODE = "id status agentName taskClass"
RECORD = "... on PlanNode { id title summary updatedAt } ... on Asset { id title status updatedAt }"
REPLAY = f"""query($id: ID!) {{ replayEpisode(id: $id) {{
  episode {{ {EPISODE} inputRefs }} agent {{ name }} parent {{ id }} children {{ id }}
  reads {{ label role linkedAt changedSince record {{ {RECORD} }} }}
  writes {{ label role record {{ {RECORD} }} }}
  snapshots {{ snapshot {{ id kbVersionId }} plan {{ id }} viaRecordIds inForceAtStart }}
  log {{ uri sha256 toolCalls }} }} }}"""
TREE = f"""query($id: ID!) {{ episodeTree(id: $id, maxDepth: 5) {{
  episode {{ id }} root {{ id }} pathToRoot {{ id }} truncated
  descendants {{ depth hasChildren episode {{ {EPISODE} parentEpisodeId }} }} }} }}"""
AGENTS = """
UNWIND ['planner', 'creator', 'critic'] AS name
MERGE (a:Agent {client_id: $client_id, name: name})
ON CREATE SET a.id = randomUUID(), a.created_at = datetime(), a.updated_at = datetime()
"""
# One tree per plan: a planner root, two creator children, a critic grandchild under each.
# Set-up only (hand-written bulk Cypher); the API writes episodes one mutation at a time.
EPISODE_TREES = """
UNWIND $plan_ids AS plan_id
MATCH (p:Plan {id: plan_id, client_id: $client_id})
WITH p, COLLECT { MATCH (p)-[:HAS_NODE]->(n:PlanNode) RETURN n ORDER BY n.id LIMIT 4 } AS nodes,
     COLLECT { MATCH (p)-[:HAS_NODE]->(:PlanNode)<-[:FROM_BLUEPRINT]-(a:Asset)
               RETURN a ORDER BY a.id LIMIT 3 } AS assets
CALL (p, nodes, assets) {
  UNWIND range(0, 4) AS i
  WITH i, CASE WHEN i = 0 THEN 'planner' WHEN i < 3 THEN 'creator' ELSE 'critic' END AS name,
       datetime() - duration({days: 1}) + duration({seconds: i}) AS at
  MATCH (agent:Agent {client_id: $client_id, name: name})
  CREATE (agent)-[:RAN]->(e:AgentEpisode {
    id: randomUUID(), client_id: $client_id, agent_name: name, task_class: 'llm.creator',
    trigger: 'planner_tick', status: 'success', input_refs: '{"plan_id":"' + p.id + '"}',
    retrieval_refs: '[]', output_summary: 'bench episode', latency_ms: 1200, tool_call_count: 4,
    tool_call_log_uri: 's3://agentmem/client/' + $client_id + '/episodes/bench/log.jsonl',
    tool_call_log_sha256: '0000', created_at: at, updated_at: at, closed_at: at
  })
  WITH i, e, at
  CALL (e, at, nodes, assets) {
    UNWIND nodes[0..3] AS n CREATE (e)-[:READ {role: 'input', created_at: at}]->(n)
  }
  CALL (e, at, nodes, assets) {
    UNWIND assets[0..2] AS a CREATE (e)-[:READ {role: 'retrieved', created_at: at}]->(a)
  }
  CALL (e, at, nodes, assets) {
    UNWIND assets[2..3] + nodes[3..4] AS w
    CREATE (e)-[:WROTE {role: 'output', created_at: at}]->(w)
  }
  WITH i, e ORDER BY i
  RETURN collect(e) AS tree
}
UNWIND [[1, 0], [2, 0], [3, 1], [4, 2]] AS edge
WITH tree[edge[0]] AS child, tree[edge[1]] AS parent
CREATE (parent)-[:SPAWNED]->(child)
SET child.parent_episode_id = parent.id
RETURN count(*) AS spawned
"""
SAMPLES = """
MATCH (root:AgentEpisode {client_id: $client_id, agent_name: 'planner'})-[:SPAWNED]->(child)
WITH root, min(child.id) AS child ORDER BY root.id LIMIT $n
RETURN root.id AS root, child
"""


async def prepare(settings: Settings, name: str, plans: int, trees: int) -> tuple[str, int, int]:
    """The demo client (generated once) with `trees` episode trees; its node and episode counts."""
    async with connected(settings) as graph:
        client_id = await ensure_client(graph, name=name)
        scope = {"client_id": client_id}
        have = await graph.read(
            "MATCH (n:Plan {client_id: $client_id}) RETURN count(n) AS n", scope
        )
        if have[0]["n"] < plans:
            print(f"generating {name} ({plans} plans) ...", file=sys.stderr)
            await generate_demo(graph, None, client_id=client_id, plans=plans, progress=True)
        count = "MATCH (e:AgentEpisode {client_id: $client_id}) RETURN count(e) AS n"
        if (await graph.read(count, scope))[0]["n"] == 0:
            print(f"writing {trees * 5} episodes ...", file=sys.stderr)
            await graph.write(AGENTS, scope)
            rows = await graph.read(
                "MATCH (p:Plan {client_id: $client_id}) RETURN p.id AS id ORDER BY p.id LIMIT $n",
                scope | {"n": trees},
            )
            ids = [row["id"] for row in rows]
            for start in range(0, len(ids), 50):
                await graph.write(EPISODE_TREES, scope | {"plan_ids": ids[start : start + 50]})
        total = await graph.read("MATCH (n {client_id: $client_id}) RETURN count(n) AS n", scope)
        episodes = (await graph.read(count, scope))[0]["n"]
        return client_id, int(total[0]["n"]), int(episodes)


def measure(
    driver: Driver, database: str, http: httpx.Client, client_id: str, runs: int
) -> dict[str, dict[str, float]]:
    samples = driver.execute_query(SAMPLES, {"client_id": client_id, "n": 50}).records
    roots, children = [r["root"] for r in samples], [r["child"] for r in samples]

    def gql(query: str, ids: list[str]) -> Callable[[], None]:
        cycle = itertools.cycle(ids)

        def call() -> None:
            body = http.post("/graphql", json={"query": query, "variables": {"id": next(cycle)}})
            assert "errors" not in body.json(), body.text

        return call

    def cypher(name: str, ids: list[str], **extra: Any) -> Callable[[], None]:
        cycle, text = itertools.cycle(ids), named_query(name)

        def call() -> None:
            params = api_params({"id": next(cycle), "client_id": client_id} | extra)
            records = driver.execute_query(text, params, database_=database).records
            assert records

        return call

    cases = {
        "replay GraphQL": gql(REPLAY, children),
        "replay Cypher": cypher("replay", children),
        "tree GraphQL": gql(TREE, roots),
        "tree Cypher": cypher("episode_tree", roots, max_depth=5),
    }
    return interleaved(cases, runs=runs, warmup=30)


def interleaved(
    cases: dict[str, Callable[[], None]], *, runs: int, warmup: int
) -> dict[str, dict[str, float]]:
    """Per round, one call of every case in turn: load from other processes on the machine
    falls on all cases alike instead of on whichever case ran while it lasted."""
    for fn in cases.values():
        for _ in range(warmup):
            fn()
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for n in range(runs):
        for name, fn in cases.items():
            started = time.perf_counter()
            fn()
            samples[name].append((time.perf_counter() - started) * 1000)
        if (n + 1) % max(1, runs // 10) == 0:
            print(f"\r  {n + 1}/{runs} rounds", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return {name: summary(values) for name, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--plans", type=int, default=1000, help="demo plans (~106 nodes each)")
    parser.add_argument("--trees", type=int, default=400, help="episode trees of 5 episodes")
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    args = parser.parse_args()
    settings = load_settings()
    name = f"bench-episodes-{args.plans}"
    client_id, nodes, episodes = asyncio.run(prepare(settings, name, args.plans, args.trees))
    key = asyncio.run(create_key(settings, client=name, role=Role.ANALYST, agent_name=None))
    port = args.port or free_port()
    server = serve_api(port)
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    try:
        with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
            version = driver.get_server_info().agent
            http = httpx.Client(
                base_url=f"http://127.0.0.1:{port}",
                headers={"Authorization": f"Bearer {key.secret}"},
                timeout=60,
            )
            rows = measure(driver, settings.neo4j_database, http, client_id, args.runs)
    finally:
        server.terminate()
        server.wait(timeout=30)
    ratios = {
        f"{what} GraphQL/Cypher {stat}": round(
            rows[f"{what} GraphQL"][key_] / rows[f"{what} Cypher"][key_], 2
        )
        for what in ("replay", "tree")
        for stat, key_ in (("p50", "median_ms"), ("p99", "p99_ms"))
    }
    sizes = {"plans": args.plans, "client_nodes": nodes, "episodes": episodes}
    report("replay", sizes=sizes, rows=rows, ratios=ratios, neo4j_server=version)


if __name__ == "__main__":
    main()
