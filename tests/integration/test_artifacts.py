"""Artifacts through the minio SDK against the real local S3 server."""

from __future__ import annotations

import asyncio
import hashlib
import uuid

import httpx
import pytest

from app.artifacts.store import ArtifactStore, make_client
from app.domain.kernel.errors import NotFound, ValidationFailed
from app.domain.kernel.principal import Principal
from app.model.enums import Role
from app.settings import Settings


def principal() -> Principal:
    return Principal(client_id=str(uuid.uuid4()), role=Role.AGENT, key_id=str(uuid.uuid4()))


def test_put_checksum_get_and_presigned_url(settings: Settings) -> None:
    store = ArtifactStore(make_client(settings), bucket=settings.s3_bucket)
    owner, stranger = principal(), principal()
    data = b"tool-call log line\n" * 1000

    async def scenario() -> None:
        await store.ensure_bucket()
        stored = await store.put(owner, ("episodes", "log.jsonl"), data, content_type="text/plain")
        assert stored.key == f"client/{owner.client_id}/episodes/log.jsonl"
        assert stored.uri == f"s3://{settings.s3_bucket}/{stored.key}"
        assert stored.sha256 == hashlib.sha256(data).hexdigest() and stored.size == len(data)
        assert await store.get(owner, stored.uri) == data
        assert await store.exists(owner, stored.uri)
        url = await store.presigned_url(owner, stored.uri, expires_s=60)
        fetched = await asyncio.to_thread(httpx.get, url)
        assert fetched.status_code == 200 and fetched.content == data
        with pytest.raises(NotFound):
            await store.get(stranger, stored.uri)
        with pytest.raises(NotFound):
            await store.presigned_url(stranger, stored.uri)
        assert not await store.exists(owner, stored.uri.replace("log.jsonl", "other.jsonl"))
        with pytest.raises(NotFound):
            await store.get(owner, stored.uri.replace("log.jsonl", "other.jsonl"))
        with pytest.raises(ValidationFailed):
            await store.put(owner, ("..", "x"), b"", content_type="text/plain")

    asyncio.run(scenario())
