"""Subjects (user profiles, seed 004) and their relationship context with agents (seed 003):
validation and stored shapes (no I/O here)."""

from __future__ import annotations

import math
import re
from typing import Any

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.field_rules import MAX_NAME, check_text, json_text

MAX_REF = 200
MAX_PROMPT = 20_000
MAX_STEP = 1_000_000  # one touch may add at most this many sessions / interactions / minutes
RELATIONSHIP_TYPE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$")


def check_ref(value: Any, *, field: str = "subject") -> str:
    """A subject's external reference: the caller's own id of the user, 1-200 characters."""
    if not isinstance(value, str) or not value.strip() or len(value.strip()) > MAX_REF:
        raise ValidationFailed(f"{field} must be 1-{MAX_REF} characters", field=field)
    return value.strip()


def check_subject(fields: dict[str, Any]) -> dict[str, Any]:
    """external_ref, and display_name, profile and preferences (JSON objects) and the active
    flag where given (None: the stored value stays)."""
    check_text(fields, "display_name", limit=MAX_NAME)
    active = fields.get("active")
    if active is not None and not isinstance(active, bool):
        raise ValidationFailed("active must be true or false", field="active")
    return {
        "external_ref": check_ref(fields.get("external_ref"), field="external_ref"),
        "display_name": fields.get("display_name"),
        "profile": json_text(fields.get("profile"), field="profile"),
        "preferences": json_text(fields.get("preferences"), field="preferences"),
        "active": active,
    }


def check_relationship(fields: dict[str, Any]) -> dict[str, Any]:
    """type, custom_prompt and memory_settings (JSON object) as the RELATES_TO relationship
    stores them; None leaves a stored value as it is."""
    kind = fields.get("type")
    if not isinstance(kind, str) or not RELATIONSHIP_TYPE.match(kind.strip()):
        raise ValidationFailed(
            "type: 1-64 letters, digits, space, '_', '.', '-' (e.g. friend, mentor), starting "
            "with a letter or digit",
            field="type",
        )
    check_text(fields, "custom_prompt", limit=MAX_PROMPT)
    return {
        "type": kind.strip(),
        "custom_prompt": fields.get("custom_prompt"),
        "memory_settings": json_text(fields.get("memory_settings"), field="memory_settings"),
    }


def check_touch(fields: dict[str, Any]) -> dict[str, Any]:
    """How much one contact adds: sessions and interactions (whole numbers), minutes."""
    steps: dict[str, Any] = {}
    for name in ("sessions", "interactions"):
        value = fields.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_STEP:
            raise ValidationFailed(f"{name} must be a whole number 0-{MAX_STEP}", field=name)
        steps[name] = value
    minutes = fields.get("minutes")
    if isinstance(minutes, bool) or not isinstance(minutes, int | float):
        raise ValidationFailed("minutes must be a number", field="minutes")
    if not math.isfinite(minutes) or not 0 <= minutes <= MAX_STEP:
        raise ValidationFailed(f"minutes must be from 0 to {MAX_STEP}", field="minutes")
    return steps | {"minutes": float(minutes)}
