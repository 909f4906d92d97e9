"""Agent episode rules: the status machine, field validation and the lines of the tool-call
log, checked and built before anything is written (no I/O here)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from app.domain.kernel.errors import Conflict, InvalidTransition, ValidationFailed
from app.domain.kernel.field_rules import MAX_TEXT, check_text, enum_value, json_text
from app.domain.kernel.ids import check_id
from app.model.enums import EpisodeStatus, EpisodeTrigger

S = EpisodeStatus
EPISODE_TRANSITIONS: dict[EpisodeStatus, frozenset[EpisodeStatus]] = {
    S.RUNNING: frozenset({S.SUCCESS, S.FAILED, S.ABORTED, S.ESCALATED}),
    S.SUCCESS: frozenset(),
    S.FAILED: frozenset(),
    S.ABORTED: frozenset(),
    S.ESCALATED: frozenset(),
}
MAX_TASK_CLASS = 100
MAX_ROLE = 64
MAX_LINKS = 100
MAX_ENTRIES = 200
MAX_CHUNK_BYTES = 1024 * 1024
# GraphQL Int is 32-bit: the largest token estimate and latency (~24.8 days) it can carry.
MAX_TOKENS = MAX_LATENCY_MS = 2**31 - 1


def check_running(status: EpisodeStatus, *, episode_id: str, action: str) -> None:
    """A closed episode is immutable: its status, links and tool-call log are final."""
    if status is not S.RUNNING:
        raise Conflict(
            f"episode {episode_id} is closed ({status.value}); cannot {action}",
            id=episode_id,
            status=status.value,
        )


def check_close(current: EpisodeStatus, target: Any, *, episode_id: str) -> EpisodeStatus:
    """The final status of a running episode: success, failed, aborted or escalated."""
    goal = enum_value(EpisodeStatus, target, field="status")
    check_running(current, episode_id=episode_id, action="close it again")
    if goal not in EPISODE_TRANSITIONS[current]:
        allowed = ", ".join(sorted(s.value for s in EPISODE_TRANSITIONS[current]))
        raise InvalidTransition(
            f"an episode closes with one of: {allowed}", current=current.value, target=goal.value
        )
    return goal


def check_new_episode(fields: dict[str, Any]) -> dict[str, Any]:
    """task_class, trigger, input_refs and retrieval_refs as the graph stores them."""
    check_text(fields, "task_class", limit=MAX_TASK_CLASS, required=True)
    refs = {
        name: json_text(fields.get(name), field=name, kinds=(dict, list))
        for name in ("input_refs", "retrieval_refs")
    }
    trigger = enum_value(EpisodeTrigger, fields.get("trigger"), field="trigger")
    return {"task_class": fields["task_class"].strip(), "trigger": trigger.value} | refs


def check_links(items: Any, *, field: str) -> list[dict[str, str]]:
    """[{id, role}] with canonical ids, de-duplicated in the order given."""
    if not isinstance(items, list) or len(items) > MAX_LINKS:
        raise ValidationFailed(f"{field} must list at most {MAX_LINKS} records", field=field)
    links: dict[tuple[str, str], dict[str, str]] = {}
    for index, item in enumerate(items):
        role = item.get("role") if isinstance(item, dict) else None
        if not isinstance(role, str) or not role.strip() or len(role) > MAX_ROLE:
            raise ValidationFailed(f"{field}[{index}].role must be 1-{MAX_ROLE} characters")
        record_id = check_id(str(item.get("id")), field=f"{field}[{index}].id")
        links.setdefault((record_id, role.strip()), {"id": record_id, "role": role.strip()})
    return list(links.values())


def tool_call_lines(entries: Any, *, first_seq: int, recorded_at: datetime) -> bytes:
    """One JSON line per tool call, numbered from `first_seq` in the order given."""
    if not isinstance(entries, list) or not 1 <= len(entries) <= MAX_ENTRIES:
        raise ValidationFailed(f"entries must list 1-{MAX_ENTRIES} tool calls", field="entries")
    lines = []
    for offset, entry in enumerate(entries):
        if not isinstance(entry, dict) or not entry:
            raise ValidationFailed(f"entries[{offset}] must be a non-empty JSON object")
        line = {"kind": "tool_call", "seq": first_seq + offset, "recorded_at": recorded_at}
        lines.append(_line(line | {"call": entry}))
    data = b"".join(lines)
    if len(data) > MAX_CHUNK_BYTES:
        raise ValidationFailed(f"one append holds at most {MAX_CHUNK_BYTES} bytes of JSON lines")
    return data


def check_outcome(fields: dict[str, Any]) -> dict[str, Any]:
    """output_summary, cost_tokens_est, latency_ms and decisions of a close."""
    check_text(fields, "output_summary", limit=MAX_TEXT)
    outcome: dict[str, Any] = {"output_summary": fields.get("output_summary")}
    for name, limit in (("cost_tokens_est", MAX_TOKENS), ("latency_ms", MAX_LATENCY_MS)):
        value = fields.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValidationFailed(f"{name} must be a whole number", field=name)
        if value is not None and not 0 <= value <= limit:
            raise ValidationFailed(f"{name} must be between 0 and {limit}", field=name)
        outcome[name] = value
    decisions = fields.get("decisions") or []
    if not isinstance(decisions, list) or len(decisions) > MAX_ENTRIES:
        raise ValidationFailed(f"decisions must list at most {MAX_ENTRIES} objects")
    if not all(isinstance(decision, dict) and decision for decision in decisions):
        raise ValidationFailed("each decision must be a non-empty JSON object", field="decisions")
    return outcome | {"decisions": decisions}


def final_log(
    episode: dict[str, Any],
    *,
    links: Sequence[dict[str, Any]],
    children: Sequence[str],
    tool_calls: Sequence[bytes],
    outcome: dict[str, Any],
) -> bytes:
    """The closed episode's log as JSON lines: episode, inputs, reads, tool calls, spawned
    children, writes, decisions, output. `episode` holds stored values (JSON refs as text)."""
    head = {key: episode.get(key) for key in ("agent_name", "task_class", "trigger")}
    lines = [
        _line(
            {"kind": "episode", "episode_id": episode["id"], "client_id": episode["client_id"]}
            | head
            | {
                "parent_episode_id": episode.get("parent_episode_id"),
                "started_at": episode["created_at"],
            }
        ),
        _line(
            {
                "kind": "input",
                "input_refs": _decoded(episode.get("input_refs")),
                "retrieval_refs": _decoded(episode.get("retrieval_refs")),
            }
        ),
        *_link_lines(links, "read"),
        *tool_calls,
        *(_line({"kind": "spawned", "episode_id": child}) for child in children),
        *_link_lines(links, "write"),
        *(
            _line({"kind": "decision", "seq": seq, "decision": decision})
            for seq, decision in enumerate(outcome["decisions"], start=1)
        ),
        _line({"kind": "output"} | {k: v for k, v in outcome.items() if k != "decisions"}),
    ]
    return b"".join(lines)


def _link_lines(links: Sequence[dict[str, Any]], direction: str) -> list[bytes]:
    return [
        _line({"kind": direction} | {k: v for k, v in link.items() if k != "direction"})
        for link in links
        if link["direction"] == direction
    ]


def _decoded(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _line(value: dict[str, Any]) -> bytes:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=_json_default)
    return text.encode("utf-8") + b"\n"


def _json_default(value: Any) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
