"""Repository helpers shared by the asset graph and publishing: lookups, locks, artifact refs."""

from __future__ import annotations

from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import NotFound, ValidationFailed
from app.domain.kernel.principal import Principal
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain

MAX_URI = 1_000


def missing(what: str, record_id: str) -> NotFound:
    """The one answer for an id that does not exist and for an id of another client."""
    return NotFound(f"no {what} with id {record_id}", id=record_id)


def first_record(rows: list[dict[str, Any]], key: str, *, what: str, record_id: str) -> Any:
    if not rows or rows[0].get(key) is None:
        raise missing(what, record_id)
    return plain(rows[0][key])


async def read_one(
    graph: GraphExecutor, query: str, params: dict[str, Any], *, key: str, what: str
) -> dict[str, Any]:
    rows = await graph.read(query, params)
    return dict(first_record(rows, key, what=what, record_id=params["id"]))


async def locked_one(
    tx: Tx, query: str, params: dict[str, Any], *, key: str, what: str
) -> dict[str, Any]:
    """Run a query that write-locks one node (SET/REMOVE of a dummy property) and returns it."""
    rows = await tx.run(query, params)
    return dict(first_record(rows, key, what=what, record_id=params["id"]))


async def check_artifact_ref(
    artifacts: ArtifactStore, *, principal: Principal, uri: Any, field: str
) -> str:
    """A URI the graph may point at: under the caller's prefix and present in object storage.

    Another client's URI is answered exactly like one that does not exist.
    """
    if not isinstance(uri, str) or not uri or len(uri) > MAX_URI:
        raise ValidationFailed(f"{field} must be 1-{MAX_URI} characters", field=field)
    if not await artifacts.exists(principal, uri):
        raise NotFound(f"no artifact at {uri}")
    return uri
