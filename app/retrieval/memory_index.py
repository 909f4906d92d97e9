"""The memory indexes (seed 001's MemoryIndex, seed 004's embeddings per model): one
`MemoryIndex` node per (scope, model), the scope being the whole deployment ('') or one client.

Search in a scope uses its ACTIVE index (a client's own, else the deployment's). `reembed`
registers a new model as BUILDING and fills its property on the scope's records
(index_build.py) while search keeps the active one; once no searchable record of the scope lacks
it, one transaction makes it ACTIVE and the one before RETIRED. The embedding worker embeds a
changed record with every index not retired of its scopes, and leaves a record pending while
one of them lacks it (index_rows.py reads the registry inside its write).
"""

from __future__ import annotations

from typing import Any

from neo4j.exceptions import Neo4jError

from app.graph.executor import GraphExecutor
from app.graph.fragments import lock
from app.graph.migrations import CREATED_MEANWHILE
from app.model.enums import MemoryIndexStatus
from app.retrieval.vector_index import LEGACY_PROPERTY, VectorIndex, create_index_ddl, for_model

DEPLOYMENT = ""  # the scope of the deployment-wide indexes

READ_ALL = (
    "MATCH (m:MemoryIndex) RETURN m.scope AS scope, m.model AS model, "
    "m.dimensions AS dimensions, m.status AS status, m.activated_at AS activated_at"
)
# A database without an active deployment index gets one: the first model when records already
# hold its embeddings (they were written before several models existed), else the configured.
ENSURE_DEFAULT = """
OPTIONAL MATCH (a:MemoryIndex {scope: ''}) WHERE a.status = 'active'
WITH count(a) AS actives WHERE actives = 0
WITH CASE WHEN EXISTS { MATCH (n:Searchable) WHERE n.embedding IS NOT NULL }
  THEN $legacy ELSE $configured END AS pick
MERGE (m:MemoryIndex {scope: '', model: pick.model})
ON CREATE SET m.id = randomUUID(), m.created_at = datetime()
SET m += pick, m.status = 'active', m.activated_at = datetime(), m.updated_at = datetime()
RETURN m.model AS model
"""
REGISTER = f"""
MERGE (m:MemoryIndex {{scope: $scope, model: $model}})
ON CREATE SET m.id = randomUUID(), m.created_at = datetime(), m.status = 'building',
  m.dimensions = $dimensions, m.property = $property, m.index_name = $index_name
{lock("m")}
SET m.status = CASE m.status WHEN 'retired' THEN 'building' ELSE m.status END,
  m.updated_at = datetime()
RETURN m.status AS status, m.dimensions AS dimensions
"""
PROGRESS = """
MATCH (m:MemoryIndex {scope: $scope, model: $model})
SET m.done = $done, m.total = $total, m.updated_at = datetime()
"""
STATUSES = """
MATCH (m:MemoryIndex) WHERE m.scope IN ['', $client_id]
RETURN m.scope AS scope, m.model AS model, m.dimensions AS dimensions, m.status AS status,
  m.done AS done, m.total AS total, m.activated_at AS activated_at
ORDER BY m.scope, m.created_at
"""


def scope_condition(scope: str) -> str:
    """The records of the scope `$scope` (as `n`)."""
    return "true" if scope == DEPLOYMENT else "n.client_id = $scope"


def flip_query(scope: str) -> str:
    """BUILDING -> ACTIVE (and the active one before -> RETIRED) in one transaction, only when
    no searchable record of the scope lacks the model's property."""
    return f"""
MATCH (m:MemoryIndex {{scope: $scope, model: $model}}) WHERE m.status = 'building'
{lock("m")}
WITH m
CALL () {{
  MATCH (n:Searchable) WHERE {scope_condition(scope)} AND n[$property] IS NULL
  RETURN count(n) AS missing
}}
WITH m, missing WHERE missing = 0
CALL (m) {{
  OPTIONAL MATCH (o:MemoryIndex {{scope: m.scope}}) WHERE o.status = 'active' AND o <> m
  SET o.status = 'retired', o.retired_at = datetime(), o.updated_at = datetime()
  RETURN collect(o.model) AS retired
}}
SET m.status = 'active', m.activated_at = datetime(), m.updated_at = datetime()
RETURN retired
"""


def missing_query(scope: str) -> str:
    return (
        f"MATCH (n:Searchable) WHERE {scope_condition(scope)} "
        "RETURN count(n) AS total, count(CASE WHEN n[$property] IS NULL THEN 1 END) AS missing"
    )


def _fields(index: VectorIndex) -> dict[str, Any]:
    return {
        "model": index.model,
        "dimensions": index.dimensions,
        "property": index.property,
        "index_name": index.index,
    }


async def ensure_default(
    graph: GraphExecutor, *, legacy: VectorIndex, configured: VectorIndex
) -> None:
    """Registers the deployment's first active index if it has none."""
    await graph.write(
        ENSURE_DEFAULT, {"legacy": _fields(legacy), "configured": _fields(configured)}
    )


async def ensure_vector_index(
    graph: GraphExecutor, index: VectorIndex, *, wait_s: float | None
) -> None:
    """The model's vector index (the first model's comes from migration 0011), online within
    `wait_s` unless that is None."""
    if index.property == LEGACY_PROPERTY:
        return
    try:
        await graph.write(create_index_ddl(index))
    except Neo4jError as error:  # IF NOT EXISTS, yet another process created it meanwhile
        if error.code != CREATED_MEANWHILE:
            raise
    if wait_s is not None:
        await graph.write("CALL db.awaitIndex($name, $wait)", {"name": index.index, "wait": wait_s})


async def register(graph: GraphExecutor, scope: str, index: VectorIndex) -> MemoryIndexStatus:
    """The (scope, model) index, new as BUILDING (a retired one starts BUILDING again)."""
    params = {"scope": scope, **_fields(index)}
    row = (await graph.write(REGISTER, params))[0]
    if int(row["dimensions"]) != index.dimensions:
        raise ValueError(
            f"{index.model} was registered with {row['dimensions']} dimensions and now gives "
            f"{index.dimensions}: a changed model needs another name (folder)"
        )
    return MemoryIndexStatus(row["status"])


async def missing(graph: GraphExecutor, scope: str, index: VectorIndex) -> tuple[int, int]:
    """(searchable records of the scope, those without the model's property)."""
    row = (await graph.read(missing_query(scope), {"scope": scope, "property": index.property}))[0]
    return int(row["total"]), int(row["missing"])


async def save_progress(
    graph: GraphExecutor, scope: str, index: VectorIndex, *, done: int, total: int
) -> None:
    params = {"scope": scope, "model": index.model, "done": done, "total": total}
    await graph.write(PROGRESS, params)


async def activate(graph: GraphExecutor, scope: str, index: VectorIndex) -> list[str] | None:
    """Makes the index ACTIVE when complete; the models it retired, None when not complete."""
    params = {"scope": scope, "model": index.model, "property": index.property}
    rows = await graph.write(flip_query(scope), params)
    return [str(model) for model in rows[0]["retired"]] if rows else None


async def statuses(graph: GraphExecutor, client_id: str) -> list[dict[str, Any]]:
    """The deployment's indexes and the client's own."""
    return [dict(row) for row in await graph.read(STATUSES, {"client_id": client_id})]


def index_of(row: dict[str, Any]) -> VectorIndex:
    """A registry row's index, its names made again from the model (never read from the graph
    into Cypher text)."""
    return for_model(str(row["model"]), int(row["dimensions"]))
