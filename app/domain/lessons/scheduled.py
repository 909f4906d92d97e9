"""Weekly and monthly client snapshots (seed 000, 8.2): each client's last completed window,
written by the background job `client-snapshots` (app/runtime/client_snapshots.py) and by
`agentmem client-snapshots`, through `write_due_snapshots`.

A window is written at most once per client, whoever races: the node is claimed by MERGE on its
window_key, unique per client (migration 0027), so a second writer waits for the first one's
transaction and then finds its node. The claimer uploads the notes inside that transaction, at
a key of its own snapshot id (a retry overwrites the object, a rolled-back attempt removes it),
and fills in the node before it commits: nobody sees a snapshot without its notes."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.artifacts.staged import staged_uploads
from app.artifacts.store import ArtifactStore
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import missing
from app.domain.lessons.rules import LessonPolicy
from app.domain.lessons.snapshots import (
    DEFAULT_TOP,
    FILL_SNAPSHOT,
    NOTES_CONTENT_TYPE,
    NOTES_NAME,
    SnapshotDraft,
    draft_snapshot,
)
from app.domain.lessons.windows import SnapshotWindow, last_completed, scheduled_period
from app.graph.executor import GraphExecutor, Tx
from app.model.enums import Role, SnapshotPeriod

log = logging.getLogger("app.client_snapshots")

WRITER = "client-snapshots"  # the key_id its snapshots name as their author
CLIENTS = """
MATCH (c:Client) WHERE $client_id IS NULL OR c.id = $client_id
OPTIONAL MATCH (s:ClientSnapshot {client_id: c.id, window_key: $window_key})
RETURN c.id AS client_id, c.name AS name, s.id AS snapshot_id ORDER BY c.name, c.id
"""
CLAIM = """
MERGE (s:ClientSnapshot {client_id: $client_id, window_key: $window_key})
ON CREATE SET s.id = $id
RETURN s.id AS id
"""


@dataclass(frozen=True)
class WindowSnapshot:
    """A client's snapshot of one window, and whether this run wrote it."""

    client_id: str
    client_name: str
    window: SnapshotWindow
    snapshot_id: str
    written: bool

    def line(self) -> str:
        done = "wrote" if self.written else "exists"
        window = f"{self.window.start.isoformat()} to {self.window.end.isoformat()}"
        return (
            f"{self.client_name} ({self.client_id}) {self.window.period.value} {window}: "
            f"{done} {self.snapshot_id}"
        )


async def write_due_snapshots(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    periods: Iterable[SnapshotPeriod | str],
    at: datetime,
    policy: LessonPolicy,
    client_id: str | None = None,
    top: int = DEFAULT_TOP,
) -> list[WindowSnapshot]:
    """For every client (or the one named), the last window of each period completed at `at`:
    written where missing, found where there. NOT_FOUND for a client id that does not exist."""
    done: list[WindowSnapshot] = []
    for period in [scheduled_period(p) for p in periods]:
        window = last_completed(period, at)
        params = {"client_id": client_id, "window_key": window.key}
        clients = await graph.read(CLIENTS, params)
        if client_id is not None and not clients:
            raise missing("client", client_id)
        for row in clients:
            done.append(await _one(graph, artifacts, row, window, policy=policy, top=top))
    return done


async def _one(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    row: dict[str, Any],
    window: SnapshotWindow,
    *,
    policy: LessonPolicy,
    top: int,
) -> WindowSnapshot:
    found = WindowSnapshot(row["client_id"], row["name"], window, row["snapshot_id"], False)
    if row["snapshot_id"] is not None:
        return found
    principal = Principal(client_id=row["client_id"], role=Role.ADMIN, key_id=WRITER)
    draft = await draft_snapshot(
        graph,
        principal=principal,
        period=window.period,
        window_start=window.start,
        window_end=window.end,
        top=top,
        policy=policy,
    )
    draft.props["window_key"] = window.key
    snapshot_id = await graph.in_transaction(_claim_and_fill(artifacts, principal, draft, window))
    written = snapshot_id == draft.props["id"]
    if written:
        log.info("client %s: wrote the %s snapshot %s", row["client_id"], window.label, snapshot_id)
    return WindowSnapshot(found.client_id, found.client_name, window, snapshot_id, written)


def _claim_and_fill(
    artifacts: ArtifactStore, principal: Principal, draft: SnapshotDraft, window: SnapshotWindow
) -> Callable[[Tx], Awaitable[str]]:
    """The transaction's work: the id of the window's snapshot, this draft's if it claimed it."""

    async def work(tx: Tx) -> str:
        claim = {
            "client_id": principal.client_id,
            "window_key": window.key,
            "id": draft.props["id"],
        }
        snapshot_id = str((await tx.run(CLAIM, claim))[0]["id"])
        if snapshot_id != draft.props["id"]:
            return snapshot_id  # another writer's, committed: nothing to store
        # Settled with the transaction: removed again if it does not commit. Keyed by this
        # draft's id, not the window: a rolled-back claim must not remove the object of the
        # writer that claims the window after it.
        async with staged_uploads(artifacts, principal) as uploads:
            parts = ("snapshots", snapshot_id, NOTES_NAME)
            stored = await uploads.put(parts, draft.notes, content_type=NOTES_CONTENT_TYPE)
        draft.props["strategy_notes_uri"] = stored.uri
        await tx.run(FILL_SNAPSHOT, draft.params())
        draft.created().note()
        return snapshot_id

    return work
