"""Workspace file paths (seed 001): the one rule for a path, shared by the workspaces aggregate
(files) and agent cycles (their proposals' workspace cues)."""

from __future__ import annotations

import re
from typing import Any

from app.domain.kernel.errors import ValidationFailed

MAX_PATH = 1_024
MAX_SEGMENT = 255
MAX_CUES = 100
# Control characters and the backslash: a path is relative, POSIX, and printable.
FORBIDDEN = re.compile(r"[\x00-\x1f\x7f\\]")
RULE = (
    f"a relative path of 1-{MAX_PATH} characters, '/' between names of 1-{MAX_SEGMENT} "
    "characters (no leading or trailing '/', no '.' or '..' names, no control characters or "
    "backslashes), e.g. src/notes/plan.md"
)


def check_path(value: Any, *, field: str = "path") -> str:
    """`value`, a path as RULE says; VALIDATION naming `field` otherwise. Paths are kept as
    given, never normalised: two spellings of one path would otherwise be two files."""
    if not isinstance(value, str) or not 0 < len(value) <= MAX_PATH or FORBIDDEN.search(value):
        raise ValidationFailed(f"{field} must be {RULE}", field=field)
    for name in value.split("/"):
        if name in ("", ".", "..") or len(name) > MAX_SEGMENT:
            raise ValidationFailed(f"{field} must be {RULE}; got {value!r}", field=field)
    return value


def check_prefix(value: Any, *, field: str = "prefix") -> str:
    """A path prefix to list by: any start of a path ("" for all), e.g. "src/" or "src/ma"."""
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > MAX_PATH or FORBIDDEN.search(value):
        raise ValidationFailed(
            f"{field} must be at most {MAX_PATH} characters, without control characters or "
            "backslashes",
            field=field,
        )
    return value


def check_cues(values: Any, *, field: str = "workspace_cues") -> list[str]:
    """The paths a cycle's proposal cues (files it means to read or write, existing or not),
    de-duplicated in the order given."""
    if not isinstance(values, list) or len(values) > MAX_CUES:
        raise ValidationFailed(f"{field} must list at most {MAX_CUES} paths", field=field)
    return list(dict.fromkeys(check_path(value, field=field) for value in values))
