"""Objects a failed write may have left in object storage, removed once no node points at them.

A staged write (app/artifacts/staged.py) hands over what it cannot remove on the spot: objects
of a write whose outcome is unknown (the commit may have happened, and then a node points at
them), objects at a key other writes share (content-addressed: another node may point at the
same object), and objects whose removal failed (object storage out). Each waits `grace_s`
(longer than any request that may still be writing a node pointing at it), then the graph is
asked whether a node of the client points at it: none does -> removed; one does -> kept. While
the graph or object storage is out, the check waits for the next round.

A shared key may be uploaded again by another write of the same content (a retry) that has not
committed its node yet: no node points at the object when it is checked, and removing it would
leave that write's node pointing at nothing. Every write uploads its objects again, so an object
whose LastModified is less than `grace_s` old (twice the request deadline: LastModified has whole
seconds, and clocks differ a little) may belong to a write still in flight: it waits another
`grace_s` instead. What remains is the time between that check and the removal (one round trip):
a write whose upload lands exactly then loses its object. The queue lives in the
process; entries are logged when added, and those still queued at shutdown are counted and
logged, so an offline sweep could finish them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from minio.error import S3Error

from app.domain.kernel.errors import Unavailable
from app.graph.identifiers import cypher_label
from app.graph.registry import entities

if TYPE_CHECKING:
    from app.artifacts.store import ArtifactStore
    from app.graph.executor import GraphExecutor

log = logging.getLogger("app.artifacts")
QUEUE_MAX = 10_000
MISSING_CODES = frozenset({"NoSuchKey", "NoSuchObject", "NotFound"})


@cache
def referenced_query() -> str:
    """Of `$uris`, those a node of `$client_id` points at: every property of the model that
    names a stored object (`…_uri`, `uri`, and `…_uris` lists)."""
    tests = []
    for label, declared in entities().items():
        for name in sorted(declared.properties):
            if name.endswith("uris") and name in declared.arrays:
                points = f"uri IN n.{name}"
            elif name.endswith("uri"):
                points = f"n.{name} = uri"
            else:
                continue
            match = f"MATCH (n:{cypher_label(label)}) WHERE n.client_id = $client_id AND {points}"
            tests.append(f"EXISTS {{ {match} }}")
    condition = "\n   OR ".join(tests)
    return f"UNWIND $uris AS uri\nWITH uri WHERE {condition}\nRETURN collect(uri) AS uris"


@dataclass
class OrphanStats:
    queued: int = 0
    removed: int = 0  # no node pointed at them
    referenced: int = 0  # kept: a node points at them (the write committed, or shares them)
    deferred: int = 0  # uploaded again lately (a write may be in flight): checked again later
    dropped: int = 0  # refused: the queue was full (logged)
    failed: int = 0  # object storage refused the removal for good (logged)
    abandoned: int = 0  # still queued at shutdown (logged)


@dataclass
class OrphanReconciler:
    grace_s: float
    limit: int = QUEUE_MAX
    stats: OrphanStats = field(default_factory=OrphanStats)
    clock: Callable[[], float] = time.monotonic  # when entries are due
    wall_clock: Callable[[], float] = time.time  # what LastModified is compared with
    _due: dict[tuple[str, str], float] = field(default_factory=dict)  # (client, uri) -> time

    @property
    def pending(self) -> int:
        return len(self._due)

    def add(self, client_id: str, uris: list[str], *, reason: str) -> None:
        """Check these objects of the client after the grace period (see the module doc)."""
        if not uris:
            return
        room = max(0, self.limit - len(self._due))
        kept, refused = uris[:room], uris[room:]
        due = self.clock() + self.grace_s
        for uri in kept:
            self._due.setdefault((client_id, uri), due)
        self.stats.queued += len(kept)
        self.stats.dropped += len(refused)
        log.warning("possibly orphaned objects of client %s (%s): %s", client_id, reason, uris)
        if refused:
            log.error("orphan queue full: %d objects not reconciled: %s", len(refused), refused)

    async def reconcile(self, graph: GraphExecutor, artifacts: ArtifactStore) -> int:
        """One round over the objects whose grace has passed; how many were removed. An outage
        ends the round early; what is left waits for the next."""
        now = self.clock()
        by_client: dict[str, list[str]] = defaultdict(list)
        for (client_id, uri), due in list(self._due.items()):
            if due <= now:
                by_client[client_id].append(uri)
        removed = 0
        try:
            for client_id, uris in by_client.items():
                removed += await self._settle(graph, artifacts, client_id, uris)
        except Unavailable as error:
            log.info("orphan reconciliation waits for the next round: %s", error.message)
        return removed

    async def _settle(
        self, graph: GraphExecutor, artifacts: ArtifactStore, client_id: str, uris: list[str]
    ) -> int:
        params: dict[str, Any] = {"client_id": client_id, "uris": uris}
        referenced = set((await graph.read(referenced_query(), params))[0]["uris"])
        prefix = f"s3://{artifacts.bucket}/"
        removed = 0
        for uri in uris:
            key = uri.removeprefix(prefix)
            if uri in referenced or not key.startswith(f"client/{client_id}/"):
                self.stats.referenced += 1
            elif await self._uploaded_lately(artifacts, key):
                self.stats.deferred += 1
                self._due[(client_id, uri)] = self.clock() + self.grace_s
                continue
            elif await self._removed(artifacts, key):
                removed += 1
            del self._due[(client_id, uri)]
        return removed

    async def _uploaded_lately(self, artifacts: ArtifactStore, key: str) -> bool:
        """Whether a write may still be in flight (module doc); an outage raises. An object
        whose age cannot be read (e.g. refused) is kept for the next round: it is not known
        to be safe to remove."""
        try:
            stat = await artifacts.call(artifacts.client.stat_object, artifacts.bucket, key)
        except S3Error as error:
            if error.code in MISSING_CODES:
                return False  # already gone: the removal finds nothing
            log.warning("orphaned object %s kept: its age cannot be read (%s)", key, error.code)
            return True
        if stat.last_modified is None:
            return True  # no age given: not known to be safe to remove
        return self.wall_clock() - stat.last_modified.timestamp() < self.grace_s

    async def _removed(self, artifacts: ArtifactStore, key: str) -> bool:
        """Removes the object; an outage raises (the round ends, the object stays queued)."""
        try:
            await artifacts.call(artifacts.client.remove_object, artifacts.bucket, key)
        except Unavailable:
            raise
        except Exception:  # noqa: BLE001 - refused for good (e.g. access): logged, not retried
            self.stats.failed += 1
            log.exception("could not remove the orphaned object %s", key)
            return False
        self.stats.removed += 1
        return True

    async def run_forever(
        self, graph: GraphExecutor, artifacts: ArtifactStore, *, interval_s: float = 1.0
    ) -> None:
        """The background reconciliation (started with the memory sweeper), until cancelled."""
        while True:
            await asyncio.sleep(interval_s)
            if not self._due:
                continue
            try:
                await self.reconcile(graph, artifacts)
            except Exception:  # noqa: BLE001 - the next round retries; nothing is dropped
                log.exception("orphan reconciliation failed")

    def abandon(self) -> None:
        """At shutdown: what is still queued is counted and logged for an offline sweep."""
        if self._due:
            self.stats.abandoned += len(self._due)
            log.error("possibly orphaned objects left unreconciled: %s", sorted(self._due))
            self._due.clear()

    def totals(self) -> dict[str, int]:
        return {"pending": self.pending, **self.stats.__dict__}
