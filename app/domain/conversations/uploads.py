"""Events to append, validated, and their large parts stored in object storage first: text
longer than the inline limit and media bytes, under content-addressed keys
client/{client_id}/threads/{thread_id}/{text|media}/{sha256} (a retry rewrites the same object)."""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, field, replace
from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.conversations.fields import MAX_MEDIA, event_values
from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.field_rules import check_upload
from app.domain.kernel.ids import check_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import check_artifact_ref

TEXT_CONTENT_TYPE = "text/plain; charset=utf-8"


@dataclass(frozen=True)
class Media:
    data: bytes
    content_type: str


@dataclass(frozen=True)
class PendingEvent:
    """One validated event of an append request, before the transaction."""

    thread_id: str
    values: dict[str, Any]
    media: tuple[Media, ...] = ()
    media_uris: tuple[str, ...] = ()
    stored: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str]:
        return self.thread_id, str(self.values["external_ref"])

    def needs_storage(self, inline_max: int) -> bool:
        text = self.values.get("text")
        return bool(self.media or self.media_uris) or (text is not None and len(text) > inline_max)


def pending_event(item: dict[str, Any]) -> PendingEvent:
    """`item`: thread_id, direction, event_type, external_ref, text, metadata, occurred_at,
    media (list of (bytes, content_type)), media_uris (existing artifact URIs)."""
    media = [Media(data, content_type) for data, content_type in item.get("media") or []]
    uris = list(item.get("media_uris") or [])
    if len(media) + len(uris) > MAX_MEDIA:
        raise ValidationFailed(f"an event carries at most {MAX_MEDIA} media", field="media")
    for one in media:
        check_upload(one.data, one.content_type, field="media")
    fields = {key: value for key, value in item.items() if key not in {"media", "media_uris"}}
    fields.pop("thread_id", None)
    return PendingEvent(
        thread_id=check_id(str(item.get("thread_id")), field="thread_id"),
        values=event_values(fields),
        media=tuple(media),
        media_uris=tuple(uris),
    )


async def store_parts(
    artifacts: ArtifactStore, *, principal: Principal, event: PendingEvent, inline_max: int
) -> PendingEvent:
    """The event with `stored` filled: text_uri/text_sha256 (text emptied) for long text and
    media_uris for its media, every object written before the node that will point at it."""
    uris = [  # checked before anything is uploaded
        await check_artifact_ref(artifacts, principal=principal, uri=uri, field="media_uris")
        for uri in event.media_uris
    ]
    stored: dict[str, Any] = {}
    text = event.values.get("text")
    if text is not None and len(text) > inline_max:
        data = text.encode("utf-8")
        digest = hashlib.sha256(data).hexdigest()
        parts = ("threads", event.thread_id, "text", digest)
        put = await artifacts.put(principal, parts, data, content_type=TEXT_CONTENT_TYPE)
        stored |= {"text": None, "text_uri": put.uri, "text_sha256": put.sha256}
    for one in event.media:
        digest = hashlib.sha256(one.data).hexdigest()
        parts = ("threads", event.thread_id, "media", digest)
        put = await artifacts.put(principal, parts, one.data, content_type=one.content_type)
        uris.append(put.uri)
    if uris:
        stored["media_uris"] = list(dict.fromkeys(uris))
    return replace(event, stored=stored)


async def store_all(
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    events: list[PendingEvent],
    skip: set[tuple[str, str]],
    inline_max: int,
) -> list[PendingEvent]:
    """Store the large parts of every event whose key is not in `skip` (already appended), at
    most 8 uploads at a time; the first of repeated keys only."""
    limit = asyncio.Semaphore(8)
    seen: set[tuple[str, str]] = set(skip)

    async def one(event: PendingEvent) -> PendingEvent:
        async with limit:
            return await store_parts(
                artifacts, principal=principal, event=event, inline_max=inline_max
            )

    jobs: list[Any] = []
    for event in events:
        if event.key in seen or not event.needs_storage(inline_max):
            jobs.append(_same(event))
        else:
            seen.add(event.key)
            jobs.append(one(event))
    return list(await asyncio.gather(*jobs))


async def _same(event: PendingEvent) -> PendingEvent:
    return event
