"""Opaque keyset cursors over (created_at, id), newest first, for Relay connections."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from app.domain.kernel.errors import ValidationFailed

T = TypeVar("T")
MAX_PAGE = 200


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    cursors: list[str]
    total_count: int
    has_next_page: bool


def encode_cursor(created_at: datetime, record_id: str) -> str:
    raw = json.dumps([created_at.isoformat(), record_id]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        created_at, record_id = json.loads(base64.urlsafe_b64decode(padded))
        return datetime.fromisoformat(created_at), str(record_id)
    except (ValueError, TypeError) as error:
        raise ValidationFailed("after: not a cursor returned by this API", field="after") from error


def check_page_size(first: int) -> int:
    if not 1 <= first <= MAX_PAGE:
        raise ValidationFailed(f"first must be between 1 and {MAX_PAGE}", field="first")
    return first


def keyset_params(after: str | None) -> dict[str, Any]:
    if after is None:
        return {"after_created_at": None, "after_id": None}
    created_at, record_id = decode_cursor(after)
    return {"after_created_at": created_at, "after_id": record_id}
