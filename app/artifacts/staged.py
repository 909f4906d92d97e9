"""Upload, then write the node that points at the objects; if that write fails, remove them.

Every write that stores bytes in object storage first (so that no node ever points at a missing
object) runs inside `staged_uploads`, which notes every object uploaded in the block (also an
upload that failed: it may have been stored all the same). When the block fails:

- the write certainly did not commit (it failed before its commit was sent, or was refused a
  connection): the objects are removed at once; those at a key other writes share
  (`shared`: content-addressed keys) go to the reconciliation instead, which removes them only
  when no node points at them (app/artifacts/orphans.py), as does an object whose removal fails;
- the write's outcome is unknown (the connection dropped, or time ran out, while its commit was
  on the way): a node may point at them, so they are kept, logged, and left to the
  reconciliation.

A block that ends inside an open write transaction (idempotent creates run inside their key's
claim transaction) is settled when that transaction ends (app/graph/commit_scope.py).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from app.domain.kernel.principal import Principal
from app.graph.commit_scope import open_transaction, watch_writes

if TYPE_CHECKING:
    from app.artifacts.keys import StoredArtifact
    from app.artifacts.store import ArtifactStore

log = logging.getLogger("app.artifacts")


class StagedUploads:
    def __init__(self, artifacts: ArtifactStore, principal: Principal, *, shared: bool) -> None:
        self.artifacts = artifacts
        self.principal = principal
        self.shared = shared
        self.uris: list[str] = []  # this write's objects, settled if it fails

    def note(self, uri: str) -> None:
        if uri not in self.uris:
            self.uris.append(uri)

    async def put(
        self, parts: tuple[str, ...], data: bytes, *, content_type: str
    ) -> StoredArtifact:
        """Upload one object of this write (noted through the store)."""
        return await self.artifacts.put(self.principal, parts, data, content_type=content_type)

    async def undo(self) -> None:
        """The write certainly did not commit: remove its objects (see the module doc)."""
        uris, self.uris = self.uris, []
        if self.shared:
            self._reconcile(uris, "its write failed; the key may be another write's too")
            return
        for uri in uris:
            try:
                await self.artifacts.remove(self.principal, uri)
            except Exception as error:  # noqa: BLE001 - never hide the write's own error
                self._reconcile([uri], f"its write failed, and removing it too: {error!r}")

    async def discard(self) -> None:
        """Remove this write's objects now: it wrote nothing that points at them (it found
        another write's node instead)."""
        await self.undo()

    def unresolved(self) -> None:
        """The write may have committed: a node may point at the objects."""
        uris, self.uris = self.uris, []
        self._reconcile(uris, "its write's outcome is unknown")

    def _reconcile(self, uris: list[str], reason: str) -> None:
        self.artifacts.orphans.add(self.principal.client_id, uris, reason=reason)


_staging: ContextVar[StagedUploads | None] = ContextVar("staged_uploads", default=None)


def note_upload(uri: str) -> None:
    """Called by the store for every upload: the staged write around it (if any) takes note."""
    staged = _staging.get()
    if staged is not None:
        staged.note(uri)


@contextmanager
def _collecting(uploads: StagedUploads) -> Iterator[None]:
    token = _staging.set(uploads)
    try:
        yield
    finally:
        _staging.reset(token)


@asynccontextmanager
async def staged_uploads(
    artifacts: ArtifactStore, principal: Principal, *, shared: bool = False
) -> AsyncIterator[StagedUploads]:
    """The uploads of one write, settled as the module doc says when the block raises."""
    uploads = StagedUploads(artifacts, principal, shared=shared)
    with watch_writes() as watch, _collecting(uploads):
        try:
            yield uploads
        except BaseException:
            if watch.maybe_committed:
                uploads.unresolved()
            else:
                await uploads.undo()
            raise
    transaction = open_transaction()
    if transaction is not None and uploads.uris:
        transaction.defer(uploads)
