"""Persona rules (seed 003): what a persona's name and core personality may hold (no I/O here).

The core is the system prompt, the traits (a JSON object of short values) and the behavioural
rules (a list of sentences). Its SHA-256 over a canonical JSON form tells an edit that changes
nothing (a retry) from one that makes a new version.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any

from app.domain.agents import check_agent_name
from app.domain.kernel.errors import ValidationFailed

MAX_PROMPT = 20_000
MAX_TRAITS = 64
MAX_TRAIT_NAME = 64
MAX_TRAIT_VALUE = 2_000
MAX_RULES = 100
MAX_RULE = 2_000
MAX_DESCRIPTION = 2_000
MAX_REASON = 2_000
FIRST_REASON = "first version"
CORE = ("system_prompt", "traits", "behavioural_rules")


def check_name(value: Any) -> str:
    """A persona is named as the agent it speaks as (agent name rules)."""
    try:
        return check_agent_name(value)
    except ValidationFailed as error:
        raise ValidationFailed(f"persona {error.message}", field="name") from None


def check_prompt(value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_PROMPT:
        raise ValidationFailed(
            f"system_prompt must be 1-{MAX_PROMPT} characters", field="system_prompt"
        )
    return value.strip()


def _trait_value(name: str, value: Any) -> Any:
    if isinstance(value, str) and 0 < len(value.strip()) <= MAX_TRAIT_VALUE:
        return value.strip()
    if isinstance(value, bool) or (isinstance(value, int | float) and math.isfinite(value)):
        return value
    raise ValidationFailed(
        f"trait {name!r} must be a string of 1-{MAX_TRAIT_VALUE} characters, a finite number "
        "or a boolean",
        field="traits",
    )


def check_traits(value: Any) -> dict[str, Any]:
    """{name: value}: at most 64 traits, names 1-64 characters (none means no traits)."""
    if value is None:
        return {}
    if not isinstance(value, dict) or len(value) > MAX_TRAITS:
        raise ValidationFailed(
            f"traits must be a JSON object of at most {MAX_TRAITS} entries, e.g. "
            '{"humor_type": "dry, sarcastic"}',
            field="traits",
        )
    checked = {}
    for name, item in value.items():
        if not isinstance(name, str) or not 0 < len(name.strip()) <= MAX_TRAIT_NAME:
            raise ValidationFailed(
                f"trait names must be 1-{MAX_TRAIT_NAME} characters", field="traits"
            )
        checked[name.strip()] = _trait_value(name, item)
    return checked


def check_rules(value: Any) -> list[str]:
    """Behavioural rules: at most 100 sentences of 1-2000 characters, in the order given."""
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > MAX_RULES:
        raise ValidationFailed(
            f"behavioural_rules must list at most {MAX_RULES} rules", field="behavioural_rules"
        )
    for rule in value:
        if not isinstance(rule, str) or not 0 < len(rule.strip()) <= MAX_RULE:
            raise ValidationFailed(
                f"each behavioural rule must be 1-{MAX_RULE} characters",
                field="behavioural_rules",
            )
    return [rule.strip() for rule in value]


def check_optional_text(value: Any, *, field: str, limit: int) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        raise ValidationFailed(f"{field} must be 1-{limit} characters", field=field)
    return value.strip()


def check_core(fields: dict[str, Any]) -> dict[str, Any]:
    """The core as a version stores it: prompt, traits and rules checked, with its SHA-256."""
    core = {
        "system_prompt": check_prompt(fields.get("system_prompt")),
        "traits": check_traits(fields.get("traits")),
        "behavioural_rules": check_rules(fields.get("behavioural_rules")),
    }
    return core | {"content_sha256": core_sha256(core)}


def core_sha256(core: dict[str, Any]) -> str:
    canonical = json.dumps({name: core[name] for name in CORE}, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def edited_core(current: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """The core after an edit: each part given replaces the current one, the others stay."""
    merged = {
        name: fields[name] if fields.get(name) is not None else current[name] for name in CORE
    }
    return check_core(merged)
