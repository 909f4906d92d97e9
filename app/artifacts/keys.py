"""Where a client's objects live: every key under client/{client_id}/, each part checked."""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.principal import Principal

KEY_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


@dataclass(frozen=True)
class StoredArtifact:
    uri: str
    key: str
    size: int
    sha256: str
    content_type: str


def client_key(principal: Principal, *parts: str) -> str:
    """The object key for a client's artifact; each part is checked so no key escapes the prefix."""
    for part in parts:
        if not KEY_PART.match(part):
            raise ValidationFailed(f"artifact key part {part!r}: letters, digits, '.', '_', '-'")
    return "/".join(("client", principal.client_id, *parts))
