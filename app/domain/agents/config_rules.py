"""An agent's directives and runtime config overrides: what an edit may hold, and the state it
leads to (no I/O here). Directives are ordered sentences the agent works under (AutoGPT's
constraints, resources, best practices); config overrides are one JSON object of runtime
settings (model, temperature, ...), replaced as a whole."""

from __future__ import annotations

import json
from typing import Any

from app.domain.kernel.errors import Conflict, ValidationFailed

MAX_DIRECTIVES = 100
MAX_DIRECTIVE = 2_000
MAX_OVERRIDES_JSON = 20_000
MAX_REASON = 2_000
MAX_VERSION = 2**31 - 1  # GraphQL Int


def check_directives(value: Any) -> list[str] | None:
    """The directives as stored (each stripped); None leaves the current ones."""
    if value is None:
        return None
    rule = f"directives: at most {MAX_DIRECTIVES}, each 1-{MAX_DIRECTIVE} characters"
    if not isinstance(value, list | tuple) or len(value) > MAX_DIRECTIVES:
        raise ValidationFailed(rule, field="directives")
    for item in value:
        if not isinstance(item, str) or not item.strip() or len(item) > MAX_DIRECTIVE:
            raise ValidationFailed(f"{rule}, got {str(item)[:40]!r}", field="directives")
    return [item.strip() for item in value]


def check_overrides(value: Any) -> str | None:
    """The overrides' stored JSON text (keys sorted, so equal objects compare equal); None
    leaves the current ones, {} clears them."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValidationFailed("configOverrides must be a JSON object", field="config_overrides")
    text = json.dumps(value, separators=(",", ":"), sort_keys=True)
    if len(text) > MAX_OVERRIDES_JSON:
        raise ValidationFailed(
            f"configOverrides must be at most {MAX_OVERRIDES_JSON} characters of JSON",
            field="config_overrides",
        )
    return text


def check_reason(value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_REASON:
        raise ValidationFailed(f"reason must say why in 1-{MAX_REASON} characters", field="reason")
    return value.strip()


def check_expected_version(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_VERSION:
        raise ValidationFailed(
            "expectedVersion must be a whole number >= 0 (0: no configuration saved yet)",
            field="expected_version",
        )
    return value


def check_edit(fields: dict[str, Any]) -> dict[str, Any]:
    """directives, config_overrides (at least one), reason and expected_version, checked."""
    edit = {
        "directives": check_directives(fields.get("directives")),
        "config_overrides": check_overrides(fields.get("config_overrides")),
        "reason": check_reason(fields.get("reason")),
        "expected_version": check_expected_version(fields.get("expected_version")),
    }
    if edit["directives"] is None and edit["config_overrides"] is None:
        raise ValidationFailed(
            "an edit gives directives or configOverrides (or both)", field="directives"
        )
    return edit


def next_state(current: dict[str, Any] | None, edit: dict[str, Any]) -> dict[str, Any] | None:
    """The directives and overrides after the edit (what it leaves out is kept); None when
    they equal the current ones, so that a repeated edit saves nothing."""
    base = {
        "directives": list((current or {}).get("directives") or []),
        "config_overrides": (current or {}).get("config_overrides") or "{}",
    }
    state = {name: value if edit[name] is None else edit[name] for name, value in base.items()}
    return None if current is not None and state == base else state


def check_base(expected: int | None, current: int, *, agent_name: str) -> None:
    """Optimistic concurrency: the editor started from `expected`; someone saved since if not."""
    if expected is not None and expected != current:
        raise Conflict(
            f"agent {agent_name!r} configuration is at version {current}, and this edit was "
            f"made from version {expected}: read version {current}, apply your change to it "
            f"and save with expectedVersion {current}",
            agent_name=agent_name,
            expected_version=expected,
            current_version=current,
        )
