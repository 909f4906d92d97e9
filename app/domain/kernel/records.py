"""Repository helpers shared by the aggregates: lookups, locks, per-label queries by id,
artifact refs."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from app.artifacts.keys import StoredArtifact
from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import NotFound, ValidationFailed
from app.domain.kernel.field_rules import enum_value
from app.domain.kernel.ids import check_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.status_machine import E, status_move
from app.graph.change_feed import note_change
from app.graph.executor import GraphExecutor, Tx
from app.graph.fragments import get_query, lock_query, update_query
from app.graph.values import plain
from app.model.enums import ChangeAction

MAX_URI = 1_000
STORED_OBJECT = ("uri", "sha256", "size", "content_type")


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


@dataclasses.dataclass(frozen=True)
class OwnedNode:
    """One label's queries by id within the caller's client: get, lock and update (`$changes`,
    updated_at = `$now`), each returning the node under `key`; `what` names it in NotFound."""

    label: str
    key: str
    what: str
    # The properties naming the record it belongs to, first set wins (the change feed's
    # parent: a plan node's plan_id), as its create notes it.
    parent: tuple[str, ...] = ()
    get: str = dataclasses.field(init=False, repr=False)
    lock: str = dataclasses.field(init=False, repr=False)
    update: str = dataclasses.field(init=False, repr=False)

    def __post_init__(self) -> None:
        # Built where the node is declared (at import): a label outside the model fails there.
        object.__setattr__(self, "get", get_query(self.label, self.key))
        object.__setattr__(self, "lock", lock_query(self.label, self.key))
        object.__setattr__(self, "update", update_query(self.label, self.key))

    def scope(self, principal: Principal, record_id: str, *, field: str = "id") -> dict[str, Any]:
        """The parameters naming the caller's node: a checked id and the client."""
        return {"id": check_id(record_id, field=field), "client_id": principal.client_id}

    async def read(self, graph: GraphExecutor, scope: dict[str, Any]) -> dict[str, Any]:
        return await read_one(graph, self.get, scope, key=self.key, what=self.what)

    async def locked(self, tx: Tx, scope: dict[str, Any]) -> dict[str, Any]:
        return await locked_one(tx, self.lock, scope, key=self.key, what=self.what)

    async def change(
        self, tx: Tx, scope: dict[str, Any], changes: dict[str, Any], *, now: datetime | None = None
    ) -> dict[str, Any]:
        """Sets `changes` and updated_at (`now`, else the current time) on the caller's node
        (locked earlier in the transaction, or not when nothing was read of it); returns it."""
        params = scope | {"changes": changes, "now": now or datetime.now(UTC)}
        rows = await tx.run(self.update, params)
        written = dict(first_record(rows, self.key, what=self.what, record_id=scope["id"]))
        parent = next((written[p] for p in self.parent if written.get(p)), None)
        note_change(
            scope["client_id"], self.label, scope["id"], ChangeAction.UPDATED, parent_id=parent
        )
        return written

    async def locked_change(
        self,
        graph: GraphExecutor,
        scope: dict[str, Any],
        decide: Callable[[dict[str, Any]], dict[str, Any]],
    ) -> dict[str, Any]:
        """One transaction: lock the caller's node, let `decide` check it and name the changes
        (it raises to refuse: nothing is written), write them; returns the node as written."""

        async def work(tx: Tx) -> dict[str, Any]:
            return await self.change(tx, scope, decide(await self.locked(tx, scope)))

        return await graph.in_transaction(work)

    async def transition(
        self,
        graph: GraphExecutor,
        principal: Principal,
        record_id: str,
        target: Any,
        table: Mapping[E, frozenset[E]],
        *,
        what: str,
    ) -> dict[str, Any]:
        """A writer moves the caller's node to the status `target` where `table` allows it from
        the node's status (INVALID_TRANSITION naming `what` otherwise); returns it as written."""
        principal.require_writer()
        scope = self.scope(principal, record_id)
        goal = enum_value(type(next(iter(table))), target, field="status")
        return await self.locked_change(graph, scope, status_move(table, goal, what=what))


def stored_object(stored: StoredArtifact) -> dict[str, Any]:
    """The properties by which a node stands for one object in storage (its bytes live there)."""
    return {name: getattr(stored, name) for name in STORED_OBJECT}


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
