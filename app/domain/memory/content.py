"""A memory record's structured content: inline in the graph when small, else in object storage
under client/{client_id}/memory/content/{sha256}.json (content-addressed, so a retry or the same
content in another version rewrites the same object), written before the node points at it."""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.principal import Principal
from app.graph.executor import GraphExecutor
from app.model.search_index import HIDDEN_INDEX_PROPERTIES, is_hidden_property

JSON_CONTENT_TYPE = "application/json"
INTERNAL_KEYS = frozenset({*HIDDEN_INDEX_PROPERTIES, "record_type"})
STILL_REFERENCED = """
UNWIND $uris AS uri
WITH uri
WHERE EXISTS { MATCH (r:MemoryRecord {content_uri: uri}) }
   OR EXISTS { MATCH (v:MemoryVersion {content_uri: uri}) }
   OR EXISTS { MATCH (a:MemoryArtifact {uri: uri}) }
RETURN collect(uri) AS uris
"""


def purge_record(keep: str = "") -> str:
    """Cypher that deletes the record bound to `r` with its versions and artifacts, leaving
    `versions` and `artifacts` (those deleted) and `uris` (the stored objects all of them
    pointed at, for remove_unreferenced once committed) in scope, with `keep` (e.g. "r.id AS
    id,", over r, versions and artifacts) computed before the deletion."""
    return f"""CALL (r) {{
  OPTIONAL MATCH (r)-[:HAS_VERSION]->(v:MemoryVersion)
  RETURN collect(v) AS versions
}}
CALL (r) {{
  OPTIONAL MATCH (r)-[:HAS_ARTIFACT]->(a:MemoryArtifact)
  RETURN collect(a) AS artifacts
}}
WITH r, versions, artifacts, {keep}
     [x IN [r] + versions WHERE x.content_uri IS NOT NULL | x.content_uri]
       + [a IN artifacts | a.uri] AS uris
FOREACH (x IN versions + artifacts | DETACH DELETE x)
DETACH DELETE r"""


@dataclass(frozen=True)
class ContentPolicy:
    inline_max: int = 8_000
    max_bytes: int = 8 * 1024 * 1024


@dataclass(frozen=True)
class StoredContent:
    """The content-related properties of a record node."""

    content: str | None
    content_uri: str | None
    content_sha256: str | None
    content_size: int | None

    def props(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "content_uri": self.content_uri,
            "content_sha256": self.content_sha256,
            "content_size": self.content_size,
        }


NO_CONTENT = StoredContent(None, None, None, None)


def without_internal(record: dict[str, Any]) -> dict[str, Any]:
    """The record without the search index's own properties (every model's vectors too)."""
    return {k: v for k, v in record.items() if k not in INTERNAL_KEYS and not is_hidden_property(k)}


def content_bytes(value: Any) -> bytes | None:
    if value is None:
        return None
    if not isinstance(value, dict | list):
        raise ValidationFailed(
            "content must be a JSON object or array (put plain text in `text`)", field="content"
        )
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode()


async def store_content(
    artifacts: ArtifactStore, principal: Principal, value: Any, policy: ContentPolicy
) -> StoredContent:
    data = content_bytes(value)
    if data is None:
        return NO_CONTENT
    if len(data) > policy.max_bytes:
        raise ValidationFailed(
            f"content must be at most {policy.max_bytes} bytes of JSON, got {len(data)}",
            field="content",
        )
    digest = hashlib.sha256(data).hexdigest()
    if len(data) <= policy.inline_max:
        return StoredContent(data.decode(), None, digest, len(data))
    stored = await artifacts.put(
        principal, ("memory", "content", f"{digest}.json"), data, content_type=JSON_CONTENT_TYPE
    )
    return StoredContent(None, stored.uri, digest, stored.size)


async def hydrate(
    artifacts: ArtifactStore, principal: Principal, record: dict[str, Any]
) -> dict[str, Any]:
    """The record with `content` decoded, read from object storage where it lives there."""
    out = without_internal(record)
    if isinstance(out.get("content"), str):
        out["content"] = json.loads(out["content"])
    elif out.get("content") is None and out.get("content_uri"):
        out["content"] = json.loads(await artifacts.get(principal, out["content_uri"]))
    return out


async def hydrate_all(
    artifacts: ArtifactStore, principal: Principal, records: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    return list(await asyncio.gather(*(hydrate(artifacts, principal, r) for r in records)))


def decode_inline(record: dict[str, Any]) -> dict[str, Any]:
    out = without_internal(record)
    if isinstance(out.get("content"), str):
        out["content"] = json.loads(out["content"])
    return out


async def remove_unreferenced(
    graph: GraphExecutor, artifacts: ArtifactStore, uris: list[str]
) -> int:
    """Delete the objects no record, version or artifact points at any more (after a purge);
    the number removed. Content-addressed objects may be shared, hence the check."""
    candidates = sorted({u for u in uris if u})
    if not candidates:
        return 0
    kept = set((await graph.read(STILL_REFERENCED, {"uris": candidates}))[0]["uris"])
    prefix = f"s3://{artifacts.bucket}/"
    removed = 0
    for uri in candidates:
        if uri in kept or not uri.startswith(prefix + "client/") or ".." in uri:
            continue
        await artifacts.call(artifacts.client.remove_object, artifacts.bucket, uri[len(prefix) :])
        removed += 1
    return removed
