"""Memory record rules (seeds 001-004): namespaces, keys, tags, priority, expiry.

A namespace is up to four parts: subject (who the memory is about), agent (or persona),
session, and free-form path segments. They are joined canonically, in that order, into one
`namespace` string such as `subject:alice/agent:brad/session:s-1/projects/db`; the root
namespace (no parts) is the empty string. Segments never contain '/' or ':', so the join is
unambiguous and a prefix filter can match whole segments.
"""

from __future__ import annotations

import re
from typing import Any

from app.domain.kernel.errors import ValidationFailed

SEGMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+=-]{0,127}$")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
MAX_PATH = 8
MAX_KEY = 256
MAX_NAMESPACE = 2_000
MIN_PRIORITY, MAX_PRIORITY, DEFAULT_PRIORITY = 1, 10, 5
NAMED_PARTS = (("subject", "subject"), ("agent", "agent"), ("session_id", "session"))


def check_segment(value: Any, *, field: str) -> str:
    if not isinstance(value, str) or not SEGMENT.match(value):
        raise ValidationFailed(
            f"{field} must be 1-128 characters: letters, digits and . _ @ + = - "
            f"(starting with a letter or digit), got {value!r}",
            field=field,
        )
    return value


def namespace_parts(fields: dict[str, Any]) -> dict[str, Any]:
    """The checked subject, agent, session_id and path of `fields` (absent ones None / [])."""
    parts: dict[str, Any] = {}
    for name, _ in NAMED_PARTS:
        value = fields.get(name)
        parts[name] = None if value is None else check_segment(value, field=name)
    path = fields.get("path") or []
    if not isinstance(path, list | tuple) or len(path) > MAX_PATH:
        raise ValidationFailed(f"path must list at most {MAX_PATH} segments", field="path")
    parts["path"] = [check_segment(segment, field="path") for segment in path]
    return parts


def join_namespace(parts: dict[str, Any]) -> str:
    named = [f"{tag}:{parts[name]}" for name, tag in NAMED_PARTS if parts.get(name) is not None]
    return "/".join([*named, *parts.get("path", [])])


def check_namespace_prefix(value: Any) -> str | None:
    """A canonical namespace (or its leading whole segments); None or '' means every one."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) > MAX_NAMESPACE:
        raise ValidationFailed(
            f"namespace_prefix must be at most {MAX_NAMESPACE} characters",
            field="namespace_prefix",
        )
    for segment in value.split("/"):
        tag, colon, rest = segment.partition(":")
        named = bool(colon) and tag in {t for _, t in NAMED_PARTS}
        if not SEGMENT.match(rest if named else segment):
            raise ValidationFailed(
                "namespace_prefix must be whole canonical segments like "
                "'subject:alice/agent:brad/notes', got " + repr(value),
                field="namespace_prefix",
            )
    return value


def check_key(value: Any, *, field: str = "key", required: bool = False) -> str | None:
    if value is None and not required:
        return None
    text = value.strip() if isinstance(value, str) else None
    if not text or len(text) > MAX_KEY or CONTROL.search(text):
        raise ValidationFailed(
            f"{field} must be 1-{MAX_KEY} characters without control characters", field=field
        )
    return text


def check_priority(value: Any) -> int:
    if value is None:
        return DEFAULT_PRIORITY
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationFailed("priority must be an integer from 1 to 10", field="priority")
    if not MIN_PRIORITY <= value <= MAX_PRIORITY:
        raise ValidationFailed(
            f"priority must be from {MIN_PRIORITY} to {MAX_PRIORITY}, got {value}",
            field="priority",
        )
    return value
