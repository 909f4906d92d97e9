"""The legacy importers' line rules (seed 004), without a database: what each format's line
becomes, the deterministic identities a re-import relies on, and the reasons a line is refused."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.principal import Principal
from app.domain.legacy import session_id_of
from app.domain.legacy.contextual import context_unit
from app.domain.legacy.jarvis import jarvis_unit
from app.domain.legacy.session_agent import session_unit
from app.domain.legacy.values import legacy_time
from app.model.enums import MemorySessionStatus, Role

ADMIN = Principal(client_id="client-1", role=Role.ADMIN, key_id="cli:test")
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
SESSION = {
    "session_id": "s-42",
    "user_id": "alice",
    "created_at": "2026-02-01T10:00:00",
    "last_interaction": "2026-02-01T10:05:00Z",
    "session_data": {"device": "kitchen"},
    "session_summary": "Alice asked about the weather.",
    "conversation_history": [
        {"role": "user", "content": "Will it rain?", "timestamp": "2026-02-01T10:00:01Z"},
        {"role": "assistant", "content": "Yes, after 3 pm.", "timestamp": "2026-02-01T10:00:01Z"},
        {"role": "user", "content": {"text": "Thanks", "intent": "close"}},
    ],
}


def _session(row: dict[str, Any]) -> Any:
    return session_unit(row, line=1, principal=ADMIN, agent="sma", now=NOW)


def _refusal(build: Any, row: dict[str, Any]) -> ValidationFailed:
    with pytest.raises(ValidationFailed) as caught:
        build(row, line=7, principal=ADMIN, agent=None, now=NOW)
    return caught.value


def test_a_session_line_becomes_a_flushed_session_with_ordered_entries_and_its_summary() -> None:
    unit = _session(SESSION)
    (session,) = unit.sessions
    assert session.props["id"] == session_id_of("client-1", "s-42")
    assert session.props["external_ref"] == "sma:s-42"
    assert session.props["status"] == MemorySessionStatus.FLUSHED.value
    assert session.props["entry_count"] == 3 and session.props["timelines"] == ["main"]
    assert session.props["created_at"] == datetime(2026, 2, 1, 10, 0, tzinfo=UTC)  # naive: UTC
    times = [entry.created_at for entry in session.entries]
    assert times == sorted(times) and len(set(times)) == 3  # equal stamps made strictly later
    speakers = [entry.memory.state["source_agent"] for entry in session.entries]
    assert speakers == ["user", "assistant", "user"]
    last = session.entries[2]
    assert last.memory.state["text"] == "Thanks" and last.content == {
        "text": "Thanks",
        "intent": "close",
    }
    assert {e.memory.state["memory_type"] for e in session.entries} == {"conversation"}
    assert session.summary is not None and session.summary.memory.key == "session-summary"
    assert session.summary.memory.state["text"] == "Alice asked about the weather."


def test_a_session_without_summary_stays_open_and_its_id_is_per_client() -> None:
    unit = _session({k: v for k, v in SESSION.items() if k != "session_summary"})
    (session,) = unit.sessions
    assert session.props["status"] == MemorySessionStatus.OPEN.value and session.summary is None
    assert session_id_of("client-2", "s-42") != session.props["id"]


def test_a_bad_turn_is_named_by_its_place_in_the_line() -> None:
    turns = [{"role": "user", "content": "hi"}, {"role": "user", "content": "  "}]
    with pytest.raises(ValidationFailed) as caught:
        _session(SESSION | {"conversation_history": turns})
    assert caught.value.details["field"] == "conversation_history[1].text"
    assert caught.value.message.startswith("conversation_history[1]: ")


def test_a_contextual_line_shares_the_namespace_of_its_session() -> None:
    row = {
        "context_id": 17,
        "session_id": "s-42",
        "context_data": {"text": "Alice is in the kitchen", "room": "kitchen"},
        "embedding": [0.1, 0.2],
        "created_at": 1_767_225_600,
        "expires_at": "2026-12-31T00:00:00Z",
        "source_agent": "presence",
        "tags": ["Home"],
        "priority": 8,
    }
    (record,) = context_unit(row, line=1, principal=ADMIN, agent=None, now=NOW).records
    state = record.memory.state
    assert record.memory.key == "context:17"
    assert state["session_id"] == _session(SESSION).sessions[0].props["id"]
    assert (state["kind"], state["memory_type"], state["priority"]) == ("working", "context", 8)
    assert state["tags"] == ["home"] and record.created_at == datetime(2026, 1, 1, tzinfo=UTC)
    assert record.content == row["context_data"]  # the legacy embedding is not kept


def test_an_expired_context_or_a_bad_priority_is_refused_with_its_field() -> None:
    row = {"context_id": "c", "context_data": {"text": "x"}, "expires_at": "2025-01-01T00:00:00"}
    assert _refusal(context_unit, row).details["field"] == "expires_at"
    row = {"context_id": "c", "context_data": {"text": "x"}, "priority": 11}
    assert _refusal(context_unit, row).details["field"] == "priority"
    assert _refusal(context_unit, {"context_id": "c"}).details["field"] == "context_data"


def test_a_jarvis_line_becomes_a_subject_and_keyed_records() -> None:
    row = {
        "user_id": "bob",
        "preferences": {"units": "metric"},
        "entity_knowledge": {"Rex": {"type": "dog", "description": "Bob's dog"}, "Ann": "Sister"},
        "interaction_history": [{"timestamp": "2026-02-02T08:00:00Z", "text": "Set an alarm"}],
        "skill_states": {"alarm": {"next": "07:00"}},
    }
    unit = jarvis_unit(row, line=3, principal=ADMIN, agent=None, now=NOW)
    (subject,) = unit.subjects
    assert (
        subject["external_ref"] == "bob" and subject["props"]["preferences"] == '{"units":"metric"}'
    )
    keyed = {(r.memory.namespace, r.memory.key): r for r in unit.records}
    assert set(keyed) == {
        ("subject:bob/entity", "Rex"),
        ("subject:bob/entity", "Ann"),
        ("subject:bob/interaction", unit.records[2].memory.key),
        ("subject:bob/agent_state", "alarm"),
    }
    assert keyed["subject:bob/entity", "Rex"].memory.state["text"] == "Bob's dog"
    assert keyed["subject:bob/entity", "Ann"].memory.state["kind"] == "semantic"
    again = jarvis_unit(row, line=3, principal=ADMIN, agent=None, now=NOW)
    assert again.records[2].memory.key == unit.records[2].memory.key  # a hash of the item


def test_a_bad_jarvis_item_is_named() -> None:
    row = {"user_id": "bob", "skill_states": {"alarm": "on"}}
    assert _refusal(jarvis_unit, row).details["field"] == "skill_states['alarm'].state"
    assert _refusal(jarvis_unit, {"user_id": "b o b"}).details["field"] == "user_id"


def test_legacy_times() -> None:
    assert legacy_time("2026-01-01T01:00:00+01:00", field="t", now=NOW) == datetime(
        2026, 1, 1, tzinfo=UTC
    )
    assert legacy_time(None, field="t", now=NOW, default=NOW) == NOW
    for bad in ("yesterday", True, [1]):
        with pytest.raises(ValidationFailed):
            legacy_time(bad, field="t", now=NOW)
    with pytest.raises(ValidationFailed, match="in the future"):
        legacy_time((NOW + timedelta(days=1)).isoformat(), field="t", now=NOW)
