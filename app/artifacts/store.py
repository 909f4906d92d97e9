"""Object storage through the minio SDK; every key lives under client/{client_id}/."""

from __future__ import annotations

import asyncio
import hashlib
import io
import re
from dataclasses import dataclass
from datetime import timedelta

from minio import Minio
from minio.error import S3Error

from app.domain.errors import NotFound, ValidationFailed
from app.domain.principal import Principal
from app.settings import Settings

KEY_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


@dataclass(frozen=True)
class StoredArtifact:
    uri: str
    key: str
    size: int
    sha256: str
    content_type: str


def make_client(settings: Settings) -> Minio:
    return Minio(
        settings.s3_endpoint,
        access_key=settings.s3_access_key,
        secret_key=settings.s3_secret_key.get_secret_value(),
        secure=settings.s3_secure,
        region=settings.s3_region,
    )


def client_key(principal: Principal, *parts: str) -> str:
    """The object key for a client's artifact; each part is checked so no key escapes the prefix."""
    for part in parts:
        if not KEY_PART.match(part):
            raise ValidationFailed(f"artifact key part {part!r}: letters, digits, '.', '_', '-'")
    return "/".join(("client", principal.client_id, *parts))


class ArtifactStore:
    """Blocking SDK calls run in a worker thread so they never stall the event loop."""

    def __init__(self, client: Minio, *, bucket: str) -> None:
        self.client = client
        self.bucket = bucket

    async def ensure_bucket(self) -> None:
        if not await asyncio.to_thread(self.client.bucket_exists, self.bucket):
            await asyncio.to_thread(self.client.make_bucket, self.bucket)

    async def put(
        self, principal: Principal, parts: tuple[str, ...], data: bytes, *, content_type: str
    ) -> StoredArtifact:
        key = client_key(principal, *parts)
        digest = hashlib.sha256(data).hexdigest()
        await asyncio.to_thread(
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
            response = await asyncio.to_thread(self.client.get_object, self.bucket, key)
        except S3Error as error:
            if error.code in {"NoSuchKey", "NoSuchObject"}:
                raise NotFound(f"no artifact at {uri}") from error
            raise
        try:
            return await asyncio.to_thread(response.read)
        finally:
            response.close()
            response.release_conn()

    async def presigned_url(self, principal: Principal, uri: str, *, expires_s: int = 900) -> str:
        key = self._owned_key(principal, uri)
        return await asyncio.to_thread(
            self.client.presigned_get_object, self.bucket, key, timedelta(seconds=expires_s)
        )

    async def exists(self, principal: Principal, uri: str) -> bool:
        key = self._owned_key(principal, uri)
        try:
            await asyncio.to_thread(self.client.stat_object, self.bucket, key)
        except S3Error as error:
            if error.code in {"NoSuchKey", "NoSuchObject", "NotFound"}:
                return False
            raise
        return True

    def _owned_key(self, principal: Principal, uri: str) -> str:
        """Another client's URI is answered exactly like a URI that does not exist."""
        prefix = f"s3://{self.bucket}/client/{principal.client_id}/"
        if not uri.startswith(prefix) or ".." in uri:
            raise NotFound(f"no artifact at {uri}")
        return uri.removeprefix(f"s3://{self.bucket}/")
