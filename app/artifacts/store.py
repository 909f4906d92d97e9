"""Object storage through the minio SDK; every key lives under client/{client_id}/.

Every call is bounded by the dependency timeout (connect and each read) and by the request's
deadline (app/request_deadline.py), and a server that is down, unreachable or answering 5xx is
`Unavailable`, not an unexpected error.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from functools import partial
from typing import Any, TypeVar

from minio import Minio
from minio.error import S3Error

from app.artifacts.keys import StoredArtifact, client_key
from app.artifacts.orphans import OrphanReconciler
from app.artifacts.read_budget import charge_read
from app.artifacts.s3_client import is_outage, make_client
from app.artifacts.staged import note_upload
from app.domain.kernel.errors import NotFound, Unavailable, retry_hint
from app.domain.kernel.principal import Principal
from app.request_deadline import call_deadline
from app.settings import Settings

__all__ = ["ArtifactStore", "StoredArtifact", "client_key", "make_client", "open_store"]

MISSING_CODES = frozenset({"NoSuchKey", "NoSuchObject", "NotFound"})
# An object-storage call ends this much before the request's deadline, so that inside a graph
# transaction bounded by the same deadline its own timeout (which names object storage) fires
# first.
DEADLINE_MARGIN_S = 0.05
T = TypeVar("T")


def open_store(settings: Settings) -> ArtifactStore:
    """The store as the service configures it (bounds and retry hint from the settings)."""
    return ArtifactStore(
        make_client(settings),
        bucket=settings.s3_bucket,
        retry_after_s=retry_hint(settings.dependency_timeout_s),
    )


class ArtifactStore:
    """Blocking SDK calls run in worker threads of its own so they never stall the event loop.
    `orphans`: objects failed writes may have left, for the background reconciliation."""

    def __init__(
        self, client: Minio, *, bucket: str, retry_after_s: int = retry_hint(None)
    ) -> None:
        self.client = client
        self.bucket = bucket
        self.retry_after_s = retry_after_s
        self.orphans = OrphanReconciler(grace_s=2.0 * retry_after_s)
        # During an S3 stall each call holds a thread until its timeout, which must not queue
        # the requests (or the embedder) behind the loop's small default pool.
        self._threads = ThreadPoolExecutor(max_workers=32, thread_name_prefix="s3")

    def close(self) -> None:
        """Let the worker threads go (at shutdown); calls still running finish on their own."""
        self._threads.shutdown(wait=False, cancel_futures=True)

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """One SDK call in a worker thread, within the request's deadline; an outage raised as
        `Unavailable`."""
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout_at(call_deadline(None, margin_s=DEADLINE_MARGIN_S)):
                return await loop.run_in_executor(self._threads, partial(fn, *args, **kwargs))
        except Exception as error:
            if is_outage(error):  # TimeoutError (the deadline) is an OSError
                raise Unavailable(
                    f"object storage is unavailable ({type(error).__name__}); retry in "
                    f"{self.retry_after_s} s",
                    retry_after_s=self.retry_after_s,
                ) from error
            raise

    async def ensure_bucket(self) -> None:
        if not await self.call(self.client.bucket_exists, self.bucket):
            await self.call(self.client.make_bucket, self.bucket)

    async def put(
        self, principal: Principal, parts: tuple[str, ...], data: bytes, *, content_type: str
    ) -> StoredArtifact:
        """Upload one object; inside a staged write (app/artifacts/staged.py) it is noted there,
        also when the upload failed (it may have been stored all the same)."""
        key = client_key(principal, *parts)
        uri = f"s3://{self.bucket}/{key}"
        digest = hashlib.sha256(data).hexdigest()
        try:
            await self.call(
                self.client.put_object,
                self.bucket,
                key,
                io.BytesIO(data),
                len(data),
                content_type=content_type,
                metadata={"sha256": digest},
            )
        finally:
            note_upload(uri)
        return StoredArtifact(
            uri=uri, key=key, size=len(data), sha256=digest, content_type=content_type
        )

    async def get(self, principal: Principal, uri: str, *, prefix: int = 0) -> bytes:
        """The object's bytes (its first `prefix` bytes when given), charged to the request's
        read budget (app/artifacts/read_budget.py) before they are read."""
        key = self._owned_key(principal, uri)
        try:
            response = await self.call(self.client.get_object, self.bucket, key, length=prefix)
        except S3Error as error:
            if error.code in MISSING_CODES:
                raise NotFound(f"no artifact at {uri}") from error
            raise
        try:
            declared = response.headers.get("content-length")
            charge_read(int(declared) if declared is not None else 0)
            data = await self.call(response.read)
            if declared is None:
                charge_read(len(data))
            return data
        finally:
            response.close()
            response.release_conn()

    async def presigned_url(self, principal: Principal, uri: str, *, expires_s: int = 900) -> str:
        key = self._owned_key(principal, uri)
        return await self.call(
            self.client.presigned_get_object, self.bucket, key, timedelta(seconds=expires_s)
        )

    async def exists(self, principal: Principal, uri: str) -> bool:
        key = self._owned_key(principal, uri)
        try:
            await self.call(self.client.stat_object, self.bucket, key)
        except S3Error as error:
            if error.code in MISSING_CODES:
                return False
            raise
        return True

    async def remove(self, principal: Principal, uri: str) -> None:
        """Delete the caller's object (nothing happens when it is already gone)."""
        await self.call(self.client.remove_object, self.bucket, self._owned_key(principal, uri))

    def _owned_key(self, principal: Principal, uri: str) -> str:
        """Another client's URI is answered exactly like a URI that does not exist."""
        prefix = f"s3://{self.bucket}/client/{principal.client_id}/"
        if not uri.startswith(prefix) or ".." in uri:
            raise NotFound(f"no artifact at {uri}")
        return uri.removeprefix(f"s3://{self.bucket}/")
