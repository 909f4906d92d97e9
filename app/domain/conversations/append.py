"""The two pure halves of an append around its one write query: what to send (new events per
thread, repeats within the request folded onto their first occurrence) and what came of it
(each input's event, duplicate or not, and which threads now join the summary queue)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from app.domain.conversations.rules import ConversationPolicy, queue_changes, summary_reason
from app.domain.conversations.uploads import PendingEvent
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal

Key = tuple[str, str]


@dataclass
class Prepared:
    keys: list[Key] = field(default_factory=list)
    props: dict[Key, dict[str, Any]] = field(default_factory=dict)

    def threads(self) -> list[dict[str, Any]]:
        """Per thread (in id order: the lock order), its new events in input order."""
        grouped: dict[str, list[dict[str, Any]]] = {}
        for (thread_id, _), props in self.props.items():
            grouped.setdefault(thread_id, []).append(props)
        return [{"id": tid, "events": grouped[tid]} for tid in sorted(grouped)]


def prepare(principal: Principal, events: list[PendingEvent], *, now: datetime) -> Prepared:
    """Event properties but `sequence` and `platform` (set under the thread's lock).

    Events without `occurred_at` are stamped with the server time, one microsecond apart in
    input order, so that created_at order agrees with sequence order within a request.
    """
    prepared = Prepared()
    for event in events:
        prepared.keys.append(event.key)
        if event.key in prepared.props:
            continue
        values = {key: value for key, value in event.values.items() if key != "occurred_at"}
        created_at = event.values.get("occurred_at") or now + timedelta(
            microseconds=len(prepared.props)
        )
        props = (
            values
            | event.stored
            | {
                "id": new_id(),
                "client_id": principal.client_id,
                "thread_id": event.thread_id,
                "created_at": created_at,
                "updated_at": now,
            }
        )
        prepared.props[event.key] = {k: v for k, v in props.items() if v is not None}
    return prepared


def outcome(prepared: Prepared, rows: list[dict[str, Any]]) -> list[tuple[dict[str, Any], bool]]:
    """(event, duplicate) per input: the stored event for a known ref, the created one for the
    first occurrence of a new ref, and that one again (duplicate) for a repeat."""
    stored: dict[Key, dict[str, Any]] = {}
    created: dict[Key, dict[str, Any]] = {}
    for row in rows:
        thread = row["thread"]
        for event in row["existing"]:
            stored[(thread["id"], event["external_ref"])] = event
        for made in row["created"]:
            key = (thread["id"], made["external_ref"])
            extra = {"sequence": made["sequence"], "platform": thread["platform"]}
            created[key] = prepared.props[key] | extra
    results: list[tuple[dict[str, Any], bool]] = []
    seen: set[Key] = set()
    for key in prepared.keys:
        if key in stored:
            results.append((stored[key], True))
        else:
            results.append((created[key], key in seen))
            seen.add(key)
    return results


def queue_updates(
    rows: list[dict[str, Any]], *, policy: ConversationPolicy, now: datetime
) -> list[dict[str, Any]]:
    """The threads that this append puts on the summary queue, with the flags to set."""
    updates = []
    for row in rows:
        thread, created = row["thread"], row["created"]
        reason = summary_reason(
            events_since_summary=int(thread["events_since_summary"]),
            recent_times=[*row["recent"], *(made["created_at"] for made in created)],
            new_events=len(created),
            policy=policy,
        )
        changes = queue_changes(flagged=bool(thread["needs_summary"]), reason=reason, now=now)
        if changes:
            updates.append({"id": thread["id"], "changes": changes})
    return updates
