"""A version's content: inline JSON in the graph when small, else an object in storage under
client/{client_id}/constraints/{sha256}.json (content-addressed: a retried write rewrites the
same object), stored before the version that points at it; its SHA-256 is kept either way and
checked when the content is read back from storage."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from app.artifacts.staged import StagedUploads
from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import AppError, ValidationFailed
from app.domain.kernel.principal import Principal

JSON_CONTENT_TYPE = "application/json"
INLINE_MAX = 16 * 1024
MAX_BYTES = 4 * 1024 * 1024


class ContentCorrupted(AppError):
    """The stored object no longer has the checksum its version recorded."""

    code = "CONTENT_CORRUPTED"


@dataclass(frozen=True)
class EncodedContent:
    data: bytes
    sha256: str

    @property
    def inline(self) -> bool:
        return len(self.data) <= INLINE_MAX


def encode(content: dict[str, Any]) -> EncodedContent:
    try:
        text = json.dumps(
            content, separators=(",", ":"), sort_keys=True, ensure_ascii=False, allow_nan=False
        )
    except ValueError:
        raise ValidationFailed(
            "content holds a number JSON cannot carry (Infinity or NaN)", field="content"
        ) from None
    data = text.encode()
    if len(data) > MAX_BYTES:
        raise ValidationFailed(
            f"content must be at most {MAX_BYTES} bytes of JSON, got {len(data)}", field="content"
        )
    return EncodedContent(data, hashlib.sha256(data).hexdigest())


async def stored_props(uploads: StagedUploads, encoded: EncodedContent) -> dict[str, Any]:
    """The version's content properties; large content uploaded first."""
    props: dict[str, Any] = {"content_sha256": encoded.sha256, "content_size": len(encoded.data)}
    if encoded.inline:
        return props | {"inline_content": encoded.data.decode()}
    parts = ("constraints", f"{encoded.sha256}.json")
    stored = await uploads.put(parts, encoded.data, content_type=JSON_CONTENT_TYPE)
    return props | {"content_uri": stored.uri}


async def read_content(
    artifacts: ArtifactStore, principal: Principal, version: dict[str, Any]
) -> Any:
    """The content of a version row (inline JSON text or parsed, or its stored object)."""
    inline = version.get("inline_content")
    if inline is not None:
        return json.loads(inline) if isinstance(inline, str) else inline
    data = await artifacts.get(principal, version["content_uri"])
    if hashlib.sha256(data).hexdigest() != version["content_sha256"]:
        raise ContentCorrupted(
            f"the stored content of constraint version {version['id']} does not match its "
            "checksum; restore the object from a backup",
            id=version["id"],
        )
    return json.loads(data)
