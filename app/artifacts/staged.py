"""Upload, then write the node that points at the objects, else remove what was uploaded.

Every write that stores bytes in object storage first (so that no node ever points at a missing
object) goes through `staged_uploads`: when the node write fails, the objects it uploaded are
removed again, so a failed write leaves nothing behind. Two kinds are kept:

- objects at a key another write may also use (content-addressed keys, a log at a fixed key):
  removing one could take it from under a write of the same bytes that succeeded meanwhile
  (a retry racing its first attempt), which would leave a node pointing at nothing;
- objects of a write that met an outage (`Unavailable`): the commit may have happened before
  the connection dropped, and then a node points at them. They are logged as possibly orphaned.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from app.artifacts.store import ArtifactStore, StoredArtifact
from app.domain.errors import Unavailable
from app.domain.principal import Principal

log = logging.getLogger("app.artifacts")


class StagedUploads:
    def __init__(self, artifacts: ArtifactStore, principal: Principal) -> None:
        self.artifacts = artifacts
        self.principal = principal
        self.uris: list[str] = []  # this write's own objects, removed if it fails

    async def put(
        self, parts: tuple[str, ...], data: bytes, *, content_type: str, shared: bool = False
    ) -> StoredArtifact:
        """Upload one object; `shared`: its key may be another write's too (kept on failure)."""
        stored = await self.artifacts.put(self.principal, parts, data, content_type=content_type)
        if not shared:
            self.uris.append(stored.uri)
        return stored

    async def discard(self) -> None:
        """Remove this write's objects (its node was not written, or wrote another's)."""
        uris, self.uris = self.uris, []
        for uri in uris:
            try:
                await self.artifacts.remove(self.principal, uri)
            except Exception:
                log.exception("orphaned object %s: its write failed and removing it too", uri)


@asynccontextmanager
async def staged_uploads(
    artifacts: ArtifactStore, principal: Principal
) -> AsyncIterator[StagedUploads]:
    """Uploads for one write: removed again when the block raises (see the module doc)."""
    uploads = StagedUploads(artifacts, principal)
    try:
        yield uploads
    except Unavailable:
        if uploads.uris:
            log.warning("possibly orphaned after an outage (kept): %s", uploads.uris)
        raise
    except BaseException:
        await uploads.discard()
        raise
