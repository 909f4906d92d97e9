"""Agent episode rules: the status machine (closed is final), field validation, and the lines
of the tool-call log."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from app.domain.agents import check_agent_name
from app.domain.episodes.repository import FIND_TARGETS, LINK_TARGETS, READ_TARGETS, WRITE_TARGETS
from app.domain.episodes.rules import (
    EPISODE_TRANSITIONS,
    MAX_CHUNK_BYTES,
    MAX_LINKS,
    check_close,
    check_links,
    check_new_episode,
    check_outcome,
    check_running,
    final_log,
    tool_call_lines,
)
from app.domain.kernel.errors import Conflict, InvalidTransition, ValidationFailed
from app.model.enums import EpisodeStatus

S = EpisodeStatus
FINAL = [S.SUCCESS, S.FAILED, S.ABORTED, S.ESCALATED]
ID = "123e4567-e89b-42d3-a456-426614174000"
AT = datetime(2026, 2, 1, 9, 30, tzinfo=UTC)


def test_a_running_episode_closes_with_exactly_the_seed_statuses() -> None:
    assert EPISODE_TRANSITIONS[S.RUNNING] == frozenset(FINAL)
    for status in FINAL:
        assert check_close(S.RUNNING, status.value, episode_id=ID) is status
    with pytest.raises(InvalidTransition):
        check_close(S.RUNNING, "running", episode_id=ID)
    with pytest.raises(ValidationFailed):
        check_close(S.RUNNING, "done", episode_id=ID)


@pytest.mark.parametrize("closed", FINAL)
def test_a_closed_episode_cannot_change(closed: EpisodeStatus) -> None:
    assert EPISODE_TRANSITIONS[closed] == frozenset()
    for target in FINAL:
        with pytest.raises(Conflict) as raised:
            check_close(closed, target, episode_id=ID)
        assert raised.value.details == {"id": ID, "status": closed.value}
    with pytest.raises(Conflict):
        check_running(closed, episode_id=ID, action="append")
    check_running(S.RUNNING, episode_id=ID, action="append")


def test_agent_names_follow_api_key_agent_names() -> None:
    assert check_agent_name("creator.v2_a-1") == "creator.v2_a-1"
    for bad in ["", " planner", "bad name", "x" * 65, None, 7]:
        with pytest.raises(ValidationFailed):
            check_agent_name(bad)


def test_new_episode_fields() -> None:
    stored = check_new_episode(
        {"task_class": " llm.creator ", "trigger": "webhook_event", "input_refs": {"a": [1]}}
    )
    assert stored == {
        "task_class": "llm.creator",
        "trigger": "webhook_event",
        "input_refs": '{"a":[1]}',
        "retrieval_refs": None,
    }
    good = {"task_class": "t", "trigger": "schedule"}
    for bad in [
        {"task_class": " "},
        {"task_class": "x" * 101},
        {"trigger": "cron"},
        {"input_refs": "text"},
        {"retrieval_refs": 3},
    ]:
        with pytest.raises(ValidationFailed):
            check_new_episode(good | bad)


def test_links_are_canonical_and_deduplicated_by_id_and_role() -> None:
    upper = ID.upper()
    links = check_links(
        [{"id": upper, "role": " input "}, {"id": ID, "role": "input"}, {"id": ID, "role": "ctx"}],
        field="reads",
    )
    assert links == [{"id": ID, "role": "input"}, {"id": ID, "role": "ctx"}]
    assert check_links([], field="reads") == []
    for bad in [
        [{"id": ID, "role": ""}],
        [{"id": ID}],
        [{"id": "nope", "role": "input"}],
        [{"id": ID, "role": "r" * 65}],
        ["not an object"],
        [{"id": ID, "role": "input"}] * (MAX_LINKS + 1),
    ]:
        with pytest.raises(ValidationFailed):
            check_links(bad, field="reads")


def test_tool_call_lines_are_numbered_json_lines() -> None:
    data = tool_call_lines([{"tool": "a"}, {"tool": "b", "x": "✓"}], first_seq=4, recorded_at=AT)
    lines = [json.loads(line) for line in data.decode().splitlines()]
    assert data.endswith(b"\n") and "✓" in data.decode()
    head = {"kind": "tool_call", "recorded_at": AT.isoformat()}
    assert lines == [
        head | {"seq": 4, "call": {"tool": "a"}},
        head | {"seq": 5, "call": {"tool": "b", "x": "✓"}},
    ]
    for bad in [[], [{}], ["text"], [[1]], {"tool": "a"}, [{"blob": "x" * MAX_CHUNK_BYTES}]]:
        with pytest.raises(ValidationFailed):
            tool_call_lines(bad, first_seq=1, recorded_at=AT)


def test_outcome_fields() -> None:
    outcome = check_outcome(
        {"output_summary": "ok", "cost_tokens_est": 10, "decisions": [{"a": 1}]}
    )
    assert outcome == {
        "output_summary": "ok",
        "cost_tokens_est": 10,
        "latency_ms": None,
        "decisions": [{"a": 1}],
    }
    for bad in [
        {"latency_ms": -1},
        {"cost_tokens_est": True},
        {"cost_tokens_est": 1.5},
        {"output_summary": "x" * 2001},
        {"decisions": ["text"]},
        {"decisions": [{}]},
    ]:
        with pytest.raises(ValidationFailed):
            check_outcome(bad)


def test_final_log_orders_inputs_reads_calls_children_writes_decisions_output() -> None:
    episode = {
        "id": ID,
        "client_id": "c-1",
        "agent_name": "creator",
        "task_class": "llm.creator",
        "trigger": "planner_tick",
        "input_refs": '{"brief":"reel"}',
        "retrieval_refs": None,
        "created_at": AT,
    }
    link = {"id": ID, "label": "PlanNode", "role": "input", "linked_at": AT}
    links = [link | {"direction": "write", "role": "output"}, link | {"direction": "read"}]
    calls = tool_call_lines([{"tool": "a"}], first_seq=1, recorded_at=AT)
    outcome = {"status": "success", "output_summary": "done", "decisions": [{"pick": "B"}]}
    data = final_log(
        episode, links=links, children=["child-1"], tool_calls=[calls], outcome=outcome
    )
    lines = [json.loads(line) for line in data.decode().splitlines()]
    assert [line["kind"] for line in lines] == [
        "episode", "input", "read", "tool_call", "spawned", "write", "decision", "output",
    ]  # fmt: skip
    assert lines[0]["started_at"] == AT.isoformat() and lines[0]["agent_name"] == "creator"
    assert lines[1] == {"kind": "input", "input_refs": {"brief": "reel"}, "retrieval_refs": None}
    assert lines[2] == {"kind": "read", "id": ID, "label": "PlanNode", "role": "input",
                        "linked_at": AT.isoformat()}  # fmt: skip
    assert lines[4] == {"kind": "spawned", "episode_id": "child-1"}
    assert lines[6] == {"kind": "decision", "seq": 1, "decision": {"pick": "B"}}
    assert lines[7] == {"kind": "output", "status": "success", "output_summary": "done"}


def test_link_targets_are_the_model_declared_ones() -> None:
    assert READ_TARGETS == ("Asset", "ConversationThread", "Lesson", "PlanNode")
    assert WRITE_TARGETS == ("Asset", "ConversationThread", "EngagementEvent", "Lesson", "PlanNode")
    assert FIND_TARGETS.count("`EngagementEvent`") == 1
    assert LINK_TARGETS.count("`EngagementEvent`") == 1
    assert LINK_TARGETS.count("`PlanNode`") == 2
