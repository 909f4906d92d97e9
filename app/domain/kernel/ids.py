"""Identifiers: UUID strings, checked against a pattern before they reach a query."""

from __future__ import annotations

import re
import uuid

from app.domain.kernel.errors import ValidationFailed

UUID_PATTERN = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def new_id() -> str:
    return str(uuid.uuid4())


def check_id(value: str, *, field: str = "id") -> str:
    """Return the id in canonical lower case, or raise a VALIDATION error naming the field."""
    candidate = value.strip().lower()
    if not UUID_PATTERN.match(candidate):
        raise ValidationFailed(
            f"{field} must be a UUID like 123e4567-e89b-12d3-a456-426614174000, got {value!r}",
            field=field,
        )
    return candidate
