"""Removing the stored objects of purged conversation events and summaries once nothing points
at them: text and media are stored at their hash under the thread (another event of the thread
may hold the same bytes), and another record may name a medium as an existing artifact.

The purge is committed by then: when the check or a removal fails (object storage or the graph
out), what is left goes to the orphan reconciliation (app/artifacts/orphans.py), which checks
again later, rather than staying behind for good."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from app.artifacts.orphans import referenced_query
from app.artifacts.store import ArtifactStore
from app.graph.executor import GraphExecutor

log = logging.getLogger("app.expiry")


async def remove_thread_objects(
    graph: GraphExecutor, artifacts: ArtifactStore, client_id: str, uris: Iterable[str | None]
) -> int:
    """Of `uris`, the client's thread objects no node of the client points at, removed; how
    many. Objects outside the client's threads (artifacts an event only named) stay."""
    prefix = f"s3://{artifacts.bucket}/client/{client_id}/threads/"
    left = sorted({u for u in uris if u and u.startswith(prefix) and ".." not in u})
    removed = 0
    try:
        if left:
            params = {"client_id": client_id, "uris": left}
            kept = set((await graph.read(referenced_query(), params))[0]["uris"])
            left = [uri for uri in left if uri not in kept]
        while left:
            key = left[0].removeprefix(f"s3://{artifacts.bucket}/")
            await artifacts.call(artifacts.client.remove_object, artifacts.bucket, key)
            left.pop(0)
            removed += 1
    except Exception:  # noqa: BLE001 - the purge is committed: reconciled later, not lost
        log.exception("thread objects of client %s left to the orphan reconciliation", client_id)
        artifacts.orphans.add(client_id, left, reason="purged conversation events")
    return removed
