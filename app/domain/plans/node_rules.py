"""PlanNode rules: the status machine and field validation, checked before anything is written."""

from __future__ import annotations

import json
import math
from enum import Enum
from typing import Any

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.status_machine import check_transition
from app.model.enums import PlanNodeStatus, PlanNodeType

S = PlanNodeStatus
NODE_TRANSITIONS: dict[PlanNodeStatus, frozenset[PlanNodeStatus]] = {
    S.PENDING: frozenset({S.READY, S.BLOCKED, S.FAILED}),
    S.READY: frozenset({S.COMPLETE, S.BLOCKED, S.FAILED, S.PENDING}),
    S.BLOCKED: frozenset({S.PENDING, S.READY, S.FAILED}),
    S.FAILED: frozenset({S.PENDING}),
    S.COMPLETE: frozenset(),
}
# A new node has not run yet, so it cannot start failed or complete.
INITIAL_STATUSES = frozenset({S.PENDING, S.READY, S.BLOCKED})
NODE_FIELDS = frozenset(
    {"node_type", "title", "inputs", "summary", "status", "quality_score", "cost_estimate"}
)
REQUIRED_ON_CREATE = frozenset({"node_type", "title"})
MAX_TITLE = 200
MAX_SUMMARY = 2_000
MAX_INPUTS_CHARS = 20_000


def check_node_transition(current: PlanNodeStatus, target: PlanNodeStatus) -> None:
    check_transition(NODE_TRANSITIONS, current, target, what="a plan node")


def check_new_node(fields: dict[str, Any]) -> dict[str, Any]:
    """Validate a node to create; returns its properties as stored (status defaults to pending)."""
    for name in sorted(REQUIRED_ON_CREATE):
        if fields.get(name) is None:
            raise ValidationFailed(f"{name} is required", field=name)
    status = fields.get("status") or S.PENDING
    if _enum_value(PlanNodeStatus, status, "status") not in {s.value for s in INITIAL_STATUSES}:
        allowed = ", ".join(sorted(s.value for s in INITIAL_STATUSES))
        raise ValidationFailed(f"a new plan node starts in one of: {allowed}", field="status")
    return check_node_changes(fields | {"status": status})


def check_node_changes(fields: dict[str, Any]) -> dict[str, Any]:
    """Validate the node fields present in `fields`; returns them as the graph stores them."""
    unknown = set(fields) - NODE_FIELDS
    if unknown:
        raise ValidationFailed(f"unknown plan node fields: {', '.join(sorted(unknown))}")
    stored: dict[str, Any] = {}
    for name, value in fields.items():
        if value is None and name in REQUIRED_ON_CREATE | {"status"}:
            raise ValidationFailed(f"{name} cannot be null", field=name)
        stored[name] = None if value is None else _checked(name, value)
    return stored


def _checked(name: str, value: Any) -> Any:
    if name == "node_type":
        return _enum_value(PlanNodeType, value, name)
    if name == "status":
        return _enum_value(PlanNodeStatus, value, name)
    if name == "title":
        if not isinstance(value, str) or not value.strip() or len(value) > MAX_TITLE:
            raise ValidationFailed(f"title must be 1-{MAX_TITLE} characters", field=name)
        return value
    if name == "summary":
        if not isinstance(value, str) or len(value) > MAX_SUMMARY:
            raise ValidationFailed(f"summary must be at most {MAX_SUMMARY} characters", field=name)
        return value
    if name == "quality_score":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
            raise ValidationFailed("quality_score must be an integer from 0 to 100", field=name)
        return value
    if name == "cost_estimate":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValidationFailed("cost_estimate must be a number", field=name)
        if not math.isfinite(value) or value < 0:
            raise ValidationFailed("cost_estimate must be a finite number >= 0", field=name)
        return float(value)
    return encode_inputs(value)


def encode_inputs(value: Any) -> str:
    """`inputs` is a JSON object, stored as its JSON text."""
    if not isinstance(value, dict):
        raise ValidationFailed("inputs must be a JSON object", field="inputs")
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValidationFailed(f"inputs is not valid JSON: {error}", field="inputs") from None
    if len(text) > MAX_INPUTS_CHARS:
        raise ValidationFailed(
            f"inputs must be at most {MAX_INPUTS_CHARS} characters as JSON", field="inputs"
        )
    return text


def decode_inputs(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    decoded = json.loads(value) if isinstance(value, str) else value
    return dict(decoded)


def _enum_value(enum: type[Enum], value: Any, field: str) -> str:
    try:
        return str(enum(value.value if isinstance(value, Enum) else value).value)
    except ValueError:
        allowed = ", ".join(str(member.value) for member in enum)
        raise ValidationFailed(f"{field} must be one of: {allowed}", field=field) from None
