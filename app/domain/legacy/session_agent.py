"""SessionMemoryAgent lines (seed 004): one session per line, its conversation turns as the
session's entries (kind working, timeline "main", in file order) and its summary, if any, as
the episodic summary a flush writes (the session is then `flushed`, else `open`).

The session's handle is `sma:<session_id>` (startSession's external_ref) and its id is derived
from the legacy id (values.session_id_of): a session already there (imported, or started with
that handle) is skipped whole, so a re-import writes nothing."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from app.domain.kernel.principal import Principal
from app.domain.legacy import values as v
from app.domain.legacy.units import Planned, SessionPlan, Unit, planned
from app.domain.memory import DEFAULT_PRIORITY
from app.domain.sessions import rules as session_rules
from app.domain.sessions.flush import SUMMARY_KEY, SUMMARY_TAG
from app.model.enums import MemoryKind, MemorySessionStatus, MemoryType

HANDLE_PREFIX = "sma:"
TURN_FIELDS = ("role", "content", "text", "timestamp")


def session_unit(
    row: dict[str, Any], *, line: int, principal: Principal, agent: str, now: datetime
) -> Unit:
    legacy = v.legacy_id(row.get("session_id"), field="session_id")
    checked = session_rules.check_new_session(
        {
            "agent": agent,
            "subject": row.get("user_id"),
            "external_ref": HANDLE_PREFIX + legacy,
            "metadata": v.json_object(row.get("session_data"), field="session_data"),
            "session_type": row.get("session_type"),
        }
    )
    created = v.legacy_time(row.get("created_at"), field="created_at", now=now)
    session = {
        **checked,
        "id": v.session_id_of(principal.client_id, legacy),
        "client_id": principal.client_id,
    }
    turns = v.json_list(row.get("conversation_history"), field="conversation_history")
    entries = _entries(turns, session, principal=principal, created=created, now=now)
    last = entries[-1].created_at if entries else None
    updated = v.legacy_time(
        row.get("last_interaction"), field="last_interaction", now=now, default=last or created
    )
    summary = _summary(row.get("session_summary"), session, entries, principal, updated, now)
    props = session | {
        "status": (
            MemorySessionStatus.OPEN if summary is None else MemorySessionStatus.FLUSHED
        ).value,
        "entry_count": len(entries),
        "timelines": [session_rules.DEFAULT_TIMELINE] if entries else [],
        "last_entry_at": last,
        "created_at": created,
        "updated_at": max(updated, created),
        "ended_at": None if summary is None else max(updated, created),
    }
    return Unit(line, sessions=[SessionPlan(props, entries, summary)])


def _entries(
    turns: list[Any],
    session: dict[str, Any],
    *,
    principal: Principal,
    created: datetime,
    now: datetime,
) -> list[Planned]:
    """The turns as entries; each created_at at least 1 microsecond after the one before (the
    order put_entry keeps), a turn without a timestamp just after the previous one."""
    out: list[Planned] = []
    previous: datetime | None = None
    for index, turn in enumerate(turns):
        with v.at(f"conversation_history[{index}]"):
            turn = v.required_object(turn, field="turn")
            when = v.legacy_time(
                turn.get("timestamp"), field="timestamp", now=now, default=previous or created
            )
            when = session_rules.entry_time(previous, when)
            text, content = v.said(turn, known=TURN_FIELDS)
            fields = session_rules.entry_fields(
                session,
                {
                    "text": text,
                    "content": content,
                    "speaker": turn.get("role"),
                    "memory_type": MemoryType.CONVERSATION.value,
                },
            )
            out.append(planned(fields, principal=principal, now=now, created_at=when))
        previous = when
    return out


def _summary(
    text: Any,
    session: dict[str, Any],
    entries: list[Planned],
    principal: Principal,
    at: datetime,
    now: datetime,
) -> Planned | None:
    """The legacy summary as flush writes one: episodic, in the session's namespace, under the
    session's summary key, with the top priority of its entries."""
    if text is None:
        return None
    with v.at("session_summary"):
        summary = session_rules.check_summary(text)
    fields = {
        "subject": session.get("subject"),
        "agent": session["agent"],
        "session_id": session["id"],
        "key": SUMMARY_KEY,
        "kind": MemoryKind.EPISODIC.value,
        "text": summary,
        "tags": [SUMMARY_TAG],
        "priority": max((e.memory.state["priority"] for e in entries), default=DEFAULT_PRIORITY),
        "source_agent": session["agent"],
    }
    return planned(fields, principal=principal, now=now, created_at=at)
