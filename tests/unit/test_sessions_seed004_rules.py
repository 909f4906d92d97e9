"""Seed 004's session rules without a database: session types, memory types onto kinds, the
archive document and its checks, and agent session state inputs."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime

import pytest

from app.domain.kernel.errors import AppError, InvalidTransition, ValidationFailed
from app.domain.kernel.principal import Principal
from app.domain.memory.fields import check_memory
from app.domain.memory.value_rules import check_kind_and_type
from app.domain.sessions import rules
from app.domain.sessions.archive import ARCHIVE_FORMAT, archive_bytes, check_status
from app.domain.sessions.unarchive import archived_entries
from app.model.enums import MEMORY_TYPE_KINDS, MemoryKind, MemorySessionStatus, MemoryType, Role

NOW = datetime(2026, 5, 1, tzinfo=UTC)
WRITER = Principal(client_id="c-1", role=Role.REVIEWER, key_id="k-1")


def test_session_types_default_to_conversation_and_are_lower_cased() -> None:
    assert rules.check_session_type(None) == "conversation"
    assert rules.check_session_type(" Task ") == "task"
    assert rules.check_session_type("voice.call-2") == "voice.call-2"
    for bad in ("", "2fa", "a" * 33, "has space", 7):
        with pytest.raises(ValidationFailed) as refused:
            rules.check_session_type(bad)
        assert refused.value.details["field"] == "session_type"


def test_every_memory_type_maps_onto_an_existing_kind() -> None:
    assert set(MEMORY_TYPE_KINDS) == set(MemoryType)
    assert set(MEMORY_TYPE_KINDS.values()) <= set(MemoryKind)
    assert MEMORY_TYPE_KINDS[MemoryType.INTERACTION] is MemoryKind.EPISODIC
    assert MEMORY_TYPE_KINDS[MemoryType.USER_PREFERENCE] is MemoryKind.SEMANTIC


def test_a_memory_type_sets_the_kind_and_a_contrary_kind_is_refused() -> None:
    assert check_kind_and_type(None, "entity") == (MemoryKind.SEMANTIC, MemoryType.ENTITY)
    assert check_kind_and_type("semantic", "entity") == (MemoryKind.SEMANTIC, MemoryType.ENTITY)
    assert check_kind_and_type("plan", None) == (MemoryKind.PLAN, None)
    with pytest.raises(ValidationFailed) as contrary:
        check_kind_and_type("working", "entity")
    assert contrary.value.details["field"] == "kind" and "semantic" in contrary.value.message
    with pytest.raises(ValidationFailed) as unknown:
        check_kind_and_type(None, "diary")
    assert unknown.value.details["field"] == "memory_type"
    with pytest.raises(ValidationFailed) as neither:
        check_kind_and_type(None, None)
    assert neither.value.details["field"] == "kind"


def test_a_checked_memory_stores_its_memory_type() -> None:
    memory = check_memory(
        {"memory_type": "interaction", "text": "called about billing"}, principal=WRITER, now=NOW
    )
    assert memory.kind is MemoryKind.EPISODIC
    assert memory.state["kind"] == "episodic" and memory.state["memory_type"] == "interaction"
    plain = check_memory({"kind": "semantic", "text": "x"}, principal=WRITER, now=NOW)
    assert plain.state["memory_type"] is None


def test_session_entries_take_only_working_memory_types() -> None:
    session = {"id": "s-1", "agent": "brad", "subject": None}
    fields = rules.entry_fields(session, {"text": "hi", "memory_type": "context"})
    assert check_memory(fields, principal=WRITER, now=NOW).state["memory_type"] == "context"
    refused = rules.entry_fields(session, {"text": "hi", "memory_type": "entity"})
    with pytest.raises(ValidationFailed, match="kind semantic"):
        check_memory(refused, principal=WRITER, now=NOW)


def test_only_a_flushed_session_is_archived_and_only_an_archived_one_unarchived() -> None:
    flushed = {"id": "s-1", "status": "flushed"}
    check_status(flushed, MemorySessionStatus.FLUSHED, action="archived")
    with pytest.raises(InvalidTransition, match="end it first"):
        check_status({"id": "s-1", "status": "open"}, MemorySessionStatus.FLUSHED, action="x")
    with pytest.raises(InvalidTransition) as refused:
        check_status(flushed, MemorySessionStatus.ARCHIVED, action="unarchived")
    assert refused.value.details["status"] == "flushed"


def _artifact(data: bytes) -> dict[str, str]:
    return {"uri": "s3://b/client/c-1/x", "sha256": hashlib.sha256(data).hexdigest()}


def test_an_archive_round_trips_its_entries_exactly() -> None:
    entries = [
        {"id": "e-1", "text": "Héllo", "content_json": None},
        {"id": "e-2", "text": None, "content_json": '{"a":1,"b":[2]}'},
    ]
    data = archive_bytes("s-1", entries, NOW)
    document = json.loads(data)
    assert document["format"] == ARCHIVE_FORMAT and document["session_id"] == "s-1"
    assert archived_entries(data, _artifact(data), "s-1") == entries


def test_a_damaged_or_foreign_archive_is_refused() -> None:
    data = archive_bytes("s-1", [{"id": "e-1", "text": "x", "content_json": None}], NOW)
    with pytest.raises(AppError) as damaged:
        archived_entries(data + b" ", _artifact(data), "s-1")
    assert damaged.value.code == "CONTENT_CORRUPTED"
    with pytest.raises(AppError) as foreign:
        archived_entries(data, _artifact(data), "s-2")
    assert foreign.value.code == "CONTENT_CORRUPTED"
