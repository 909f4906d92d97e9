"""Object storage through the minio SDK; every key lives under client/{client_id}/.

Every call is bounded by the dependency timeout (connect and each read), and a server that is
down, unreachable or answering 5xx is `Unavailable`, not an unexpected error.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any, TypeVar

import urllib3
from minio import Minio
from minio.error import MinioException, S3Error
from urllib3.exceptions import HTTPError, ProtocolError

from app.domain.errors import NotFound, Unavailable, ValidationFailed, retry_hint
from app.domain.principal import Principal
from app.settings import Settings

KEY_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
MISSING_CODES = frozenset({"NoSuchKey", "NoSuchObject", "NotFound"})
T = TypeVar("T")


@dataclass(frozen=True)
class StoredArtifact:
    uri: str
    key: str
    size: int
    sha256: str
    content_type: str


class RetryStaleConnection(urllib3.Retry):
    """Retries once, and only a request whose pooled connection the server had closed (a
    restarted S3). The SDK's default (5 retries with backoff, 5xx included, 300 s timeouts)
    turned an outage into a slow INTERNAL; a refusal or a timeout is answered at once."""

    def _is_read_error(self, err: Exception) -> bool:
        return isinstance(err, ProtocolError)


def http_client(timeout_s: float) -> urllib3.PoolManager:
    return urllib3.PoolManager(
        timeout=urllib3.Timeout(connect=timeout_s, read=timeout_s),
        maxsize=10,  # the SDK's own pool size (urllib3's default is 1)
        retries=RetryStaleConnection(total=1, connect=0, read=1, redirect=0, status=0, other=0),
    )


def make_client(settings: Settings, *, timeout_s: float | None = None) -> Minio:
    """A client whose connects and reads give up after `timeout_s` (default: the dependency
    timeout)."""
    return Minio(
        settings.s3_endpoint,
        access_key=settings.s3_access_key,
        secret_key=settings.s3_secret_key.get_secret_value(),
        secure=settings.s3_secure,
        region=settings.s3_region,
        http_client=http_client(timeout_s or settings.dependency_timeout_s),
    )


def is_outage(error: BaseException) -> bool:
    """The server is down, unreachable, too slow or failing (5xx, or an answer that is not S3's
    at all): not the request's fault."""
    if isinstance(error, S3Error):
        return error.response.status >= 500
    return isinstance(error, HTTPError | OSError | MinioException)


def client_key(principal: Principal, *parts: str) -> str:
    """The object key for a client's artifact; each part is checked so no key escapes the prefix."""
    for part in parts:
        if not KEY_PART.match(part):
            raise ValidationFailed(f"artifact key part {part!r}: letters, digits, '.', '_', '-'")
    return "/".join(("client", principal.client_id, *parts))


class ArtifactStore:
    """Blocking SDK calls run in a worker thread so they never stall the event loop."""

    def __init__(
        self, client: Minio, *, bucket: str, retry_after_s: int = retry_hint(None)
    ) -> None:
        self.client = client
        self.bucket = bucket
        self.retry_after_s = retry_after_s
        # Its own threads: during an S3 stall each call holds one until its timeout, which must
        # not queue the requests (or the embedder) behind the loop's small default pool.
        self._threads = ThreadPoolExecutor(max_workers=32, thread_name_prefix="s3")

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """One SDK call in a worker thread; an outage raised as `Unavailable`."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._threads, partial(fn, *args, **kwargs))
        except Exception as error:
            if is_outage(error):
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
        key = client_key(principal, *parts)
        digest = hashlib.sha256(data).hexdigest()
        await self.call(
            self.client.put_object,
            self.bucket,
            key,
            io.BytesIO(data),
            len(data),
            content_type=content_type,
            metadata={"sha256": digest},
        )
        return StoredArtifact(
            uri=f"s3://{self.bucket}/{key}",
            key=key,
            size=len(data),
            sha256=digest,
            content_type=content_type,
        )

    async def get(self, principal: Principal, uri: str) -> bytes:
        key = self._owned_key(principal, uri)
        try:
            response = await self.call(self.client.get_object, self.bucket, key)
        except S3Error as error:
            if error.code in MISSING_CODES:
                raise NotFound(f"no artifact at {uri}") from error
            raise
        try:
            return await self.call(response.read)
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
