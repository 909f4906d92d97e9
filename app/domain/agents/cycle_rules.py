"""Agent cycle and agent state rules: the cycle status machine and field validation, checked
before anything is written (no I/O here)."""

from __future__ import annotations

import json
from typing import Any

from app.domain.kernel.errors import Conflict, ValidationFailed
from app.domain.kernel.field_rules import check_ids, check_text, enum_value, json_text
from app.domain.kernel.status_machine import check_transition
from app.model.enums import AgentCycleStatus

S = AgentCycleStatus
CYCLE_TRANSITIONS: dict[AgentCycleStatus, frozenset[AgentCycleStatus]] = {
    S.PROPOSED: frozenset({S.SUCCEEDED, S.FAILED}),
    S.SUCCEEDED: frozenset(),
    S.FAILED: frozenset(),
}
MAX_THOUGHTS = 20_000
MAX_ERROR = 10_000
# Agent state is replaced as a whole; anything bigger belongs in a memory record's artifact.
MAX_STATE_JSON = 200_000
MAX_VERSION = 2**31 - 1  # GraphQL Int


def check_proposal(fields: dict[str, Any]) -> dict[str, Any]:
    """thoughts, tool_call (object) and plan (object or array) as stored; at least one given."""
    check_text(fields, "thoughts", limit=MAX_THOUGHTS)
    proposal = {
        "thoughts": fields.get("thoughts"),
        "tool_call": json_text(fields.get("tool_call"), field="tool_call"),
        "plan": json_text(fields.get("plan"), field="plan", kinds=(dict, list)),
    }
    if all(value is None for value in proposal.values()):
        raise ValidationFailed(
            "a cycle's proposal needs thoughts, a toolCall or a plan", field="thoughts"
        )
    return proposal


def check_result(fields: dict[str, Any]) -> dict[str, Any]:
    """status (succeeded or failed), output (object or array) and error as stored."""
    status = enum_value(AgentCycleStatus, fields.get("status"), field="status")
    if status is S.PROPOSED:
        raise ValidationFailed("a completed cycle is succeeded or failed", field="status")
    check_text(fields, "error", limit=MAX_ERROR)
    return {
        "status": status.value,
        "output": json_text(fields.get("output"), field="output", kinds=(dict, list)),
        "error": fields.get("error"),
    }


def check_completion(current: str, target: str, *, cycle_id: str) -> None:
    check_transition(CYCLE_TRANSITIONS, S(current), S(target), what=f"cycle {cycle_id}")


def memory_ids(values: Any) -> list[str]:
    return check_ids(list(values or []), field="memory_ids")


def state_text(state: Any) -> str:
    """The stored JSON text of an agent state: a JSON object of bounded size."""
    if not isinstance(state, dict):
        raise ValidationFailed("state must be a JSON object", field="state")
    text = json.dumps(state, separators=(",", ":"), sort_keys=True)
    if len(text) > MAX_STATE_JSON:
        raise ValidationFailed(
            f"state must be at most {MAX_STATE_JSON} characters of JSON", field="state"
        )
    return text


def check_expected_version(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_VERSION:
        raise ValidationFailed(
            "expectedVersion must be a whole number >= 0 (0: no state saved yet)",
            field="expected_version",
        )
    return value


def check_version(expected: int | None, current: int, *, agent_name: str) -> None:
    """Optimistic concurrency: the caller saw `expected`; someone else saved since if not."""
    if expected is not None and expected != current:
        raise Conflict(
            f"agent {agent_name!r} state is at version {current}, not {expected}: "
            "re-read it (agentResume), merge, and save with expectedVersion "
            f"{current}",
            agent_name=agent_name,
            expected_version=expected,
            current_version=current,
        )
