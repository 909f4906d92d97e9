"""Seed 002 (RaptorFlow) rules without servers: TTL defaults and overrides, caps, workspace
memory values, the sweeper's step counts, similar's request checks and getContext's shape."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.domain.agents import context_seed
from app.domain.expiry import rules
from app.domain.kernel.errors import ValidationFailed
from app.domain.memory import sweep_steps
from app.domain.workspace_memory.rules import check_workspace_memory
from app.retrieval.search import SearchMode, SearchRequest, check_request
from app.retrieval.similar import record_state_query
from app.settings import MAX_TTL_S, Settings

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
DEFAULTS = rules.Lifetimes(
    session_ttl_s=3600, session_entry_ttl_s=600, thread_ttl_s=7200, thread_max_events=200
)


def test_defaults_come_from_settings_and_zero_means_never() -> None:
    settings = Settings(
        session_ttl_s=3600,
        session_entry_ttl_s=600,
        conversation_ttl_s=7200,
        conversation_max_events=200,
    )
    assert rules.Lifetimes.from_settings(settings) == DEFAULTS
    assert rules.Lifetimes.from_settings(Settings()) == rules.NO_LIFETIMES
    assert rules.session_lifetime({}, rules.NO_LIFETIMES, NOW) == {
        "ttl_seconds": None,
        "entry_ttl_seconds": None,
        "expires_at": None,
    }


def test_a_call_overrides_each_default_and_zero_switches_one_off() -> None:
    session = rules.session_lifetime({}, DEFAULTS, NOW)
    assert session == {
        "ttl_seconds": 3600,
        "entry_ttl_seconds": 600,
        "expires_at": NOW + timedelta(hours=1),
    }
    override = rules.session_lifetime({"ttl_seconds": 0, "entry_ttl_seconds": 5}, DEFAULTS, NOW)
    assert override == {"ttl_seconds": None, "entry_ttl_seconds": 5, "expires_at": None}
    thread = rules.thread_lifetime({"max_events": 3}, DEFAULTS, NOW)
    assert thread == {
        "ttl_seconds": 7200,
        "expires_at": NOW + timedelta(hours=2),
        "max_events": 3,
    }
    assert rules.thread_lifetime({"ttl_seconds": 0, "max_events": 0}, DEFAULTS, NOW) == {
        "ttl_seconds": None,
        "expires_at": None,
        "max_events": None,
    }


def test_entry_ttl_is_the_calls_else_the_sessions() -> None:
    assert rules.entry_ttl({}, {"entry_ttl_seconds": 600}) == 600
    assert rules.entry_ttl({"ttl_seconds": 30}, {"entry_ttl_seconds": 600}) == 30
    assert rules.entry_ttl({"ttl_seconds": 0}, {"entry_ttl_seconds": 600}) is None
    assert rules.entry_ttl({}, {}) is None


def test_expiry_slides_only_with_a_ttl() -> None:
    later = NOW + timedelta(minutes=5)
    assert rules.slid({"ttl_seconds": 60}, later) == {"expires_at": later + timedelta(minutes=1)}
    assert rules.slid({"ttl_seconds": None}, later) == {}
    assert rules.ttl_changes(0, NOW) == {"ttl_seconds": None, "expires_at": None}
    assert rules.ttl_changes(10, NOW)["expires_at"] == NOW + timedelta(seconds=10)
    assert rules.entry_ttl_changes(0) == {"entry_ttl_seconds": None}


@pytest.mark.parametrize("bad", [-1, 1.5, True, "60", MAX_TTL_S + 1])
def test_bad_ttls_are_refused_naming_the_field(bad: Any) -> None:
    with pytest.raises(ValidationFailed) as refused:
        rules.session_lifetime({"entry_ttl_seconds": bad}, DEFAULTS, NOW)
    assert refused.value.details["field"] == "entry_ttl_seconds"
    with pytest.raises(ValidationFailed):
        rules.ttl_changes(bad, NOW)


@pytest.mark.parametrize("bad", [-1, 2.0, False, rules.MAX_EVENTS_KEPT + 1])
def test_bad_caps_are_refused(bad: Any) -> None:
    with pytest.raises(ValidationFailed) as refused:
        rules.check_cap(bad, field="keep_last")
    assert refused.value.details["field"] == "keep_last"


def test_ttl_changes_need_a_value() -> None:
    with pytest.raises(ValidationFailed):
        rules.ttl_changes(None, NOW)


def test_workspace_memory_values() -> None:
    values = check_workspace_memory(
        {"key": " voice ", "memory_type": "brand_voice", "value": {"tone": "warm", "a": 1}}
    )
    assert values == {
        "key": "voice",
        "memory_type": "brand_voice",
        "value": '{"a":1,"tone":"warm"}',
        "metadata": None,
        "priority": 5,
    }
    cases = [
        ({"memory_type": "icp", "value": {}}, "key"),
        ({"key": "k", "memory_type": "persona", "value": {}}, "memory_type"),
        ({"key": "k", "memory_type": "icp"}, "value"),
        ({"key": "k", "memory_type": "icp", "value": "text"}, "value"),
        ({"key": "k", "memory_type": "icp", "value": [], "metadata": [1]}, "metadata"),
        ({"key": "k", "memory_type": "icp", "value": [], "priority": 11}, "priority"),
    ]
    for fields, field in cases:
        with pytest.raises(ValidationFailed) as refused:
            check_workspace_memory(fields)
        assert refused.value.details.get("field") == field, fields


def test_sweep_step_counts_add_up_per_client_and_kind() -> None:
    counts: sweep_steps.Counts = {}
    first = sweep_steps.StepResult({"a": {"sessions": 2, "threads": 0}, "b": {"sessions": 1}})
    sweep_steps.merge_counts(counts, first)
    sweep_steps.merge_counts(counts, sweep_steps.StepResult({"a": {"sessions": 1, "threads": 4}}))
    assert counts == {"a": {"sessions": 3, "threads": 4}, "b": {"sessions": 1}}
    assert sweep_steps.totals(counts) == {"sessions": 4, "threads": 4}


def test_a_search_from_a_stored_vector_has_no_text_and_is_a_vector_search() -> None:
    check_request(SearchRequest(text="", mode=SearchMode.VECTOR), vector_given=True)
    with pytest.raises(ValidationFailed):
        check_request(SearchRequest(text=""))
    with pytest.raises(ValidationFailed) as refused:
        check_request(SearchRequest(text="", mode=SearchMode.HYBRID), vector_given=True)
    assert refused.value.details["field"] == "mode"
    with pytest.raises(ValidationFailed) as refused:
        check_request(SearchRequest(text="", mode=SearchMode.VECTOR, k=0), vector_given=True)
    assert refused.value.details["field"] == "k"


def test_the_record_state_query_takes_the_id_as_a_parameter() -> None:
    query = record_state_query()
    assert "$id" in query and "$client_id" in query and "WorkspaceMemory" in query


def _packed(**sections: list[dict[str, Any]]) -> dict[str, Any]:
    empty = {"session_entries": [], "conversation_events": [], "workspace_memories": []}
    return empty | {"content": []} | sections


def test_seed_shape_orders_the_history_and_splits_the_workspace() -> None:
    t = [NOW + timedelta(seconds=i) for i in range(4)]
    entries = [
        {"id": "e2", "agent": "ann", "source_agent": "bob", "text": "hi", "created_at": t[2]},
        {"id": "e0", "agent": "ann", "source_agent": "ann", "text": "yo", "created_at": t[0]},
    ]
    events = [{"id": "v1", "direction": "outbound", "text": "sent", "created_at": t[1]}]
    workspace = [
        {"id": "w1", "memory_type": "brand_voice"},
        {"id": "w2", "memory_type": "icp"},
        {"id": "w3", "memory_type": "preference"},
        {"id": "w4", "memory_type": "icp"},
    ]
    packed = _packed(
        session_entries=[{"record": r} for r in entries],
        conversation_events=[{"record": r} for r in events],
        workspace_memories=[{"record": r} for r in workspace],
    )
    shape = context_seed.seed_shape(packed, {"brand_kit": []})
    history = shape["conversation_history"]
    assert [m["record_id"] for m in history] == ["e0", "v1", "e2"]
    assert [m["role"] for m in history] == ["agent", "agent", "user"]
    assert history[2]["speaker"] == "bob" and history[1]["speaker"] is None
    assert shape["workspace"]["brand_voice"]["id"] == "w1"
    assert [w["id"] for w in shape["workspace"]["icps"]] == ["w2", "w4"]
    assert [w["id"] for w in shape["workspace"]["preferences"]] == ["w3"]
    assert shape["workspace"]["brand_kit"] is None and shape["relevant_content"] == []


def test_relevant_content_leaves_out_memory_and_workspace_hits() -> None:
    class Hit:
        def __init__(self, record_type: str) -> None:
            self.record_type = record_type

    hits = [Hit("MemoryRecord"), Hit("Asset"), Hit("WorkspaceMemory"), Hit("PlanNode")]
    kept = context_seed.content_hits(hits, 5)
    assert [h.record_type for h in kept] == ["Asset", "PlanNode"]
    assert len(context_seed.content_hits(hits, 1)) == 1
