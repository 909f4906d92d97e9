"""Benchmark: `similar` (seed 002 get_similar: the records nearest to one record by its stored
embedding) through HTTP GraphQL against the same neighbours read by one hand-written Cypher 25
query through the driver (the record's embedding, then SEARCH in the vector index inside the
client, the record itself left out), on a new client of N memory records written through the
API and indexed by the in-process embedding worker before anything is timed. Also a vector
`search` by text (which embeds its text first) and the fixed cost of any GraphQL request.

Run: bash app/services/env.sh bench similar [--records 1000] [--k 10] [--runs 200]
(local servers up). The cases take turns call by call in a shuffled order
(bench._common.timed_rounds), each call asking for the neighbours of the next of 50 sample
records, so that load from elsewhere hits GraphQL and its baseline alike.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from neo4j import GraphDatabase

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.cli.admin import create_key  # noqa: E402
from app.model.enums import Role  # noqa: E402
from app.retrieval.search_queries import VECTOR_INDEX  # noqa: E402
from app.settings import load_settings  # noqa: E402
from bench._common import (  # noqa: E402
    GraphQLClient,
    free_port,
    report,
    serve_api,
    summary,
    timed_rounds,
)

SIMILAR = """query($id: ID!, $k: Int!) { similar(recordId: $id, k: $k) {
  hits { recordId score } } }"""
SEARCH = """query($t: String!, $k: Int!) { search(input: {text: $t, mode: VECTOR, k: $k}) {
  hits { recordId score } } }"""
REMEMBER = """mutation($t: String!, $k: String!) { remember(input: {kind: SEMANTIC, key: $k,
  text: $t}) { id } }"""
PENDING = "{ searchStatus { pending } }"
# The hand-written baseline: the record's embedding, its k + 1 nearest inside the client.
CYPHER = f"""CYPHER 25
MATCH (s:Searchable {{id: $id}}) WHERE s.client_id = $client_id
WITH s.embedding AS vector
MATCH (n:Searchable) SEARCH n IN (VECTOR INDEX {VECTOR_INDEX} FOR vector
  WHERE n.client_id = $client_id LIMIT $pool) SCORE AS score
WITH n, score WHERE n.id <> $id
RETURN n.id AS id, score ORDER BY score DESC LIMIT $k
"""
TOPICS = ["billing", "shipping", "returns", "pricing", "onboarding", "outage", "refunds", "api"]
MOODS = ["angry", "happy", "confused", "curious", "impatient"]


def seed(client: GraphQLClient, records: int) -> list[str]:
    """N memory records through the API; their ids."""
    rng = random.Random(records)
    ids = []
    for n in range(records):
        text = (
            f"A {rng.choice(MOODS)} customer asked about {rng.choice(TOPICS)} "
            f"and {rng.choice(TOPICS)} in ticket {n}"
        )
        ids.append(client.post(REMEMBER, {"t": text, "k": f"r{n}"})["data"]["remember"]["id"])
    return ids


def wait_indexed(client: GraphQLClient, timeout_s: float = 1_800.0) -> float:
    """Seconds until the embedding worker has indexed every record of the client."""
    started = time.monotonic()
    while client.post(PENDING)["data"]["searchStatus"]["pending"] > 0:
        if time.monotonic() - started > timeout_s:
            raise RuntimeError("the embedding worker did not catch up")
        time.sleep(0.5)
    return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--port", type=int, default=0, help="API port (0: a free one)")
    args = parser.parse_args()
    settings = load_settings()
    port = args.port or free_port()
    name = f"bench-similar-{uuid.uuid4().hex[:8]}"
    key = asyncio.run(create_key(settings, client=name, role=Role.REVIEWER, agent_name=None))
    client_id = key.principal.client_id
    server = serve_api(port)
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    try:
        thin = GraphQLClient(port, key.secret)
        ids = seed(thin, args.records)
        indexed_s = wait_indexed(thin)
        samples_ids = random.Random(7).sample(ids, min(50, len(ids)))
        with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
            server_version = driver.get_server_info().agent
            db = settings.neo4j_database
            pool = max(2 * args.k, args.k + 10)  # the service's pool for a plain vector search
            check = _agreement(thin, driver, db, client_id, samples_ids[:10], args.k, pool)
            turns = {name: itertools.cycle(samples_ids) for name in ("gql", "cypher")}

            def cypher() -> Any:
                params = {"id": next(turns["cypher"]), "client_id": client_id}
                params |= {"k": args.k, "pool": pool}
                return driver.execute_query(CYPHER, params, database_=db)

            cases = {
                "similar GraphQL": lambda: thin.post(
                    SIMILAR, {"id": next(turns["gql"]), "k": args.k}
                ),
                "similar Cypher": cypher,
                "search VECTOR by text GraphQL": lambda: thin.post(
                    SEARCH, {"t": "an angry customer asked about refunds", "k": args.k}
                ),
                "floor: GraphQL { __typename }": lambda: thin.post("{ __typename }"),
            }
            samples = timed_rounds(cases, runs=args.runs, warmup=20, label="similar")
        thin.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    rows = {case: summary(values) for case, values in samples.items()}

    def ratio(top: str, bottom: str) -> float:
        return round(rows[top]["median_ms"] / rows[bottom]["median_ms"], 2)

    ratios = {
        "similar GraphQL/Cypher p50": ratio("similar GraphQL", "similar Cypher"),
        "similar GraphQL/floor p50": ratio("similar GraphQL", "floor: GraphQL { __typename }"),
        "search by text/similar GraphQL p50": ratio(
            "search VECTOR by text GraphQL", "similar GraphQL"
        ),
    }
    sizes = {"records": args.records, "k": args.k, "indexing_s": round(indexed_s, 1)}
    report(
        "similar",
        sizes=sizes,
        rows=rows,
        ratios=ratios,
        neo4j_server=server_version,
        extra={"top_k_agreement": check},
    )


def _agreement(
    thin: GraphQLClient, driver: Any, db: str, client_id: str, ids: list[str], k: int, pool: int
) -> float:
    """Share of the baseline's top k that GraphQL's answer holds too (both should be 1.0)."""
    same = total = 0
    for record_id in ids:
        hits = thin.post(SIMILAR, {"id": record_id, "k": k})["data"]["similar"]["hits"]
        params = {"id": record_id, "client_id": client_id, "k": k, "pool": pool}
        rows = driver.execute_query(CYPHER, params, database_=db).records
        expected = {row["id"] for row in rows}
        same += len(expected & {hit["recordId"] for hit in hits})
        total += len(expected)
    return round(same / max(total, 1), 3)


if __name__ == "__main__":
    main()
