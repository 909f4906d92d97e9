"""PerformanceMetric repository: bulk ingest (validated whole, written in batches of one UNWIND
transaction each, idempotent per metric id) and rollups (cypher/queries/metric_rollup_*.cypher).

A request with any invalid metric is refused whole (VALIDATION listing each bad index) before
anything is written. Batches commit one by one: if a batch fails after earlier ones committed,
resending the same request is safe, because a metric id that exists is updated in place.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from neo4j.exceptions import ConstraintError

from app.domain.engagement.metric_rules import (
    RollupGroupBy,
    check_against_graph,
    check_metrics,
    reject,
    rollup_params,
)
from app.domain.kernel.errors import Conflict
from app.domain.kernel.principal import Principal
from app.graph.change_feed import note_change
from app.graph.cypher_files import named_query
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import ChangeAction

# What the client owns among the ids a request names; other clients' records are invisible
# (metric ids are unique per client: migration 0009).
METRIC_LOOKUP = """
RETURN
  [id IN $asset_ids WHERE EXISTS { MATCH (:Asset {id: id, client_id: $client_id}) }] AS assets,
  [id IN $plan_ids WHERE EXISTS { MATCH (:Plan {id: id, client_id: $client_id}) }] AS plans,
  COLLECT { UNWIND $variant_ids AS id
            MATCH (v:AssetVariant {id: id, client_id: $client_id})
            RETURN [v.id, v.asset_id] } AS variants,
  COLLECT { UNWIND $metric_ids AS id
            MATCH (m:PerformanceMetric {id: id, client_id: $client_id})
            RETURN m {.id, .platform, .metric_type, .asset_id, .variant_id, .plan_id} } AS metrics
"""
# One batch: new metrics get their fixed fields and MEASURES relationships; existing ones (of
# this client) get the new value and window. `updated_at IS NULL` tells a node MERGE just made.
INGEST_BATCH = """
UNWIND $rows AS row
MERGE (m:PerformanceMetric {id: row.id, client_id: $client_id})
ON CREATE SET m.platform = row.platform, m.metric_type = row.metric_type,
  m.asset_id = row.asset_id, m.variant_id = row.variant_id, m.plan_id = row.plan_id,
  m.created_at = $now
WITH m, row, m.updated_at IS NULL AS created
SET m.value = row.value, m.window_start = row.window_start, m.window_end = row.window_end,
  m.updated_at = $now
WITH m, row, created
OPTIONAL MATCH (a:Asset {id: row.asset_id, client_id: $client_id}) WHERE created
OPTIONAL MATCH (v:AssetVariant {id: row.variant_id, client_id: $client_id}) WHERE created
OPTIONAL MATCH (p:Plan {id: row.plan_id, client_id: $client_id}) WHERE created
FOREACH (_ IN CASE WHEN a IS NULL THEN [] ELSE [1] END | CREATE (m)-[:MEASURES]->(a))
FOREACH (_ IN CASE WHEN v IS NULL THEN [] ELSE [1] END | CREATE (m)-[:MEASURES]->(v))
FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END | CREATE (m)-[:MEASURES]->(p))
RETURN collect(CASE WHEN created THEN m.id END) AS created,
       collect(CASE WHEN NOT created THEN m.id END) AS updated
"""
ROLLUP_QUERIES = {group: f"metric_rollup_{group.value}" for group in RollupGroupBy}


@dataclass(frozen=True)
class IngestResult:
    received: int
    created: int
    updated: int
    batches: int


async def ingest_metrics(
    graph: GraphExecutor,
    *,
    principal: Principal,
    metrics: list[dict[str, Any]],
    batch_size: int,
    limit: int,
) -> IngestResult:
    principal.require_writer()
    checked = check_metrics(metrics, limit=limit)
    reject(checked, received=len(metrics))
    rows = checked.rows
    found = await graph.read(METRIC_LOOKUP, lookup_params(principal, rows))
    check_against_graph(checked, found[0])
    reject(checked, received=len(metrics))
    created = batches = 0
    for start in range(0, len(rows), batch_size):
        params = batch_params(principal, rows[start : start + batch_size], now=datetime.now(UTC))
        created += await _write_batch(graph, params)
        batches += 1
    return IngestResult(len(rows), created, len(rows) - created, batches)


def lookup_params(principal: Principal, rows: list[dict[str, Any]]) -> dict[str, Any]:
    def distinct(name: str) -> list[str]:
        return list({row[name] for row in rows if row[name] is not None})

    return {
        "client_id": principal.client_id,
        "asset_ids": distinct("asset_id"),
        "variant_ids": distinct("variant_id"),
        "plan_ids": distinct("plan_id"),
        "metric_ids": distinct("id"),
    }


def batch_params(
    principal: Principal, rows: list[dict[str, Any]], *, now: datetime
) -> dict[str, Any]:
    """INGEST_BATCH's parameters (the benchmark runs the same query with them)."""
    stored = [{key: value for key, value in row.items() if key != "index"} for row in rows]
    return {"client_id": principal.client_id, "rows": stored, "now": now}


async def _write_batch(graph: GraphExecutor, params: dict[str, Any]) -> int:
    async def work(tx: Tx) -> int:
        written = (await tx.run(INGEST_BATCH, params))[0]
        client_id = params["client_id"]
        for action, key in ((ChangeAction.CREATED, "created"), (ChangeAction.UPDATED, "updated")):
            for metric_id in written[key]:
                note_change(client_id, "PerformanceMetric", metric_id, action)
        return len(written["created"])

    try:
        return await graph.in_transaction(work)
    except ConstraintError:
        raise Conflict(
            "a metric id of this batch was taken by another request meanwhile; earlier batches "
            "were written: resend the request (metric ids make it idempotent)"
        ) from None


async def metric_rollup(
    graph: GraphExecutor,
    *,
    principal: Principal,
    group_by: RollupGroupBy,
    metric_types: list[Any] | None = None,
    start: datetime | None = None,
    end: datetime | None = None,
    bucket: Any = "none",
    first: int = 100,
) -> list[dict[str, Any]]:
    """Rows {key, label, bucket_start, metric_type, sum, avg, max, count} of one named query."""
    params = rollup_params(
        metric_types=metric_types, start=start, end=end, bucket=bucket, first=first
    )
    query = named_query(ROLLUP_QUERIES[RollupGroupBy(group_by)])
    rows = await graph.read(query, params | {"client_id": principal.client_id})
    return [dict(plain(row)) for row in rows]
