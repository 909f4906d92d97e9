"""Field validation and storage shapes shared by the asset graph and publishing repositories."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import datetime
from enum import Enum, StrEnum
from typing import Any, TypeVar

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.ids import check_id

E = TypeVar("E", bound=StrEnum)
MAX_TITLE = 200
MAX_TEXT = 2_000
MAX_CAPTION = 5_000
MAX_NAME = 200
MAX_JSON = 20_000
MAX_IDS = 100
MAX_DIMENSION = 100_000
MAX_UPLOAD = 16 * 1024 * 1024
CHECKSUM = re.compile(r"^[A-Za-z0-9:._-]{1,128}$")
CONTENT_TYPE = re.compile(r"^[a-z0-9][a-z0-9.+-]*/[a-z0-9][a-z0-9.+-]*(; *[a-z0-9=._-]+)*$")


def stored(fields: dict[str, Any]) -> dict[str, Any]:
    """Enum members become their string values, as the graph stores them."""
    return {key: _stored_value(value) for key, value in fields.items()}


def _stored_value(value: Any) -> Any:
    if isinstance(value, list):
        return [_stored_value(item) for item in value]
    return value.value if isinstance(value, Enum) else value


def decoded(record: dict[str, Any], json_fields: Iterable[str]) -> dict[str, Any]:
    """JSON properties are stored as JSON text and handed back decoded."""
    out = dict(record)
    for field in json_fields:
        if out.get(field) is not None:
            out[field] = json.loads(out[field])
    return out


def enum_value(enum: type[E], value: Any, *, field: str) -> E:
    try:
        return enum(value)
    except ValueError:
        allowed = ", ".join(member.value for member in enum)
        raise ValidationFailed(f"{field} must be one of: {allowed}", field=field) from None


def check_pattern(value: Any, pattern: re.Pattern[str], *, field: str, rule: str) -> str:
    """`value`, a string `pattern` matches; VALIDATION stating `rule` otherwise."""
    if not isinstance(value, str) or not pattern.match(value):
        raise ValidationFailed(rule, field=field)
    return value


def check_updatable(changes: dict[str, Any], updatable: frozenset[str], *, what: str) -> None:
    """Every field `changes` names is one of `updatable` (of `what`, e.g. "an asset")."""
    unknown = changes.keys() - updatable
    if unknown:
        raise ValidationFailed(f"cannot change {', '.join(sorted(unknown))} of {what}")


def check_text(
    fields: dict[str, Any], field: str, *, limit: int = MAX_TEXT, required: bool = False
) -> None:
    """`field`, where present, is a string of at most `limit` characters (non-blank if required)."""
    if field not in fields:
        if required:
            raise ValidationFailed(f"{field} is required", field=field)
        return
    value = fields[field]
    if value is None and not required:
        return
    if not isinstance(value, str) or len(value) > limit or (required and not value.strip()):
        size = f"1-{limit}" if required else f"at most {limit}"
        raise ValidationFailed(f"{field} must be {size} characters", field=field)


def json_text(value: Any, *, field: str, kinds: tuple[type, ...] = (dict,)) -> str | None:
    """The JSON text stored for a JSON field; None stays None."""
    if value is None:
        return None
    if not isinstance(value, kinds):
        names = " or ".join("object" if kind is dict else "array" for kind in kinds)
        raise ValidationFailed(f"{field} must be a JSON {names}", field=field)
    text = json.dumps(value, separators=(",", ":"), sort_keys=True)
    if len(text) > MAX_JSON:
        raise ValidationFailed(f"{field} must be at most {MAX_JSON} characters of JSON")
    return text


def check_dimensions(value: Any) -> str | None:
    """A JSON object of positive integers, e.g. {"width": 1080, "height": 1920}."""
    if value is None:
        return None
    if not isinstance(value, dict) or not value or len(value) > 8:
        raise ValidationFailed(
            "dimensions must be a JSON object of 1-8 entries", field="dimensions"
        )
    for key, number in value.items():
        if not isinstance(key, str) or not 0 < len(key) <= 32:
            raise ValidationFailed("dimensions keys must be 1-32 characters", field="dimensions")
        if isinstance(number, bool) or not isinstance(number, int):
            raise ValidationFailed(f"dimensions.{key} must be an integer", field="dimensions")
        if not 0 < number <= MAX_DIMENSION:
            raise ValidationFailed(
                f"dimensions.{key} must be between 1 and {MAX_DIMENSION}", field="dimensions"
            )
    return json_text(value, field="dimensions")


def check_duration(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise ValidationFailed("duration_seconds must be a number >= 0", field="duration_seconds")
    if value > 86_400:
        raise ValidationFailed("duration_seconds must be at most 86400", field="duration_seconds")
    return float(value)


def check_checksum(value: Any) -> str:
    rule = "checksum must be 1-128 characters: letters, digits, ':', '.', '_', '-'"
    return check_pattern(value, CHECKSUM, field="checksum", rule=rule)


def check_upload(data: bytes, content_type: str, *, field: str) -> None:
    if not data:
        raise ValidationFailed(f"{field} must not be empty", field=field)
    if len(data) > MAX_UPLOAD:
        raise ValidationFailed(f"{field} must be at most {MAX_UPLOAD} bytes", field=field)
    if len(content_type) > 100 or not CONTENT_TYPE.match(content_type):
        raise ValidationFailed(
            "content_type must be a media type like image/png", field="content_type"
        )


def check_aware(value: datetime | None, *, field: str) -> None:
    if value is not None and value.tzinfo is None:
        raise ValidationFailed(f"{field} needs a time zone (e.g. 2026-02-01T00:00:00Z)")


def check_ids(values: Any, *, field: str, minimum: int = 0) -> list[str]:
    """Canonical, de-duplicated ids in the order given."""
    if not isinstance(values, list) or not minimum <= len(values) <= MAX_IDS:
        raise ValidationFailed(f"{field} must list {minimum}-{MAX_IDS} ids", field=field)
    return list(dict.fromkeys(check_id(value, field=field) for value in values))
