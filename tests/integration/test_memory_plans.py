"""remember and recallMemory answered by read plans (app/api/read/calls.py): the same bytes as
strawberry's own execution, errors included, with each call made once (one write, one
access-log entry) however the answer was given.

Two servers over the same graph: the suite's (fast path and plans on) and one with both off.
Every request goes to both with the same key.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.api.read import plans as read_plans
from app.model.enums import Role
from app.settings import Settings
from tests.integration.conftest import Caller, serve_in_thread
from tests.integration.memory_helpers import RECALL_KEY, REMEMBER, log_entries, team

ROUND_TRIPS = {"X-Agentmem-Roundtrips": "1"}
NAMESPACE = {"subject": "plans", "path": ["notes"]}


@pytest.fixture(scope="module")
def plain_url(settings: Settings) -> Iterator[str]:
    plain = settings.model_copy(
        update={"graphql_fast_path": False, "embedding_worker_in_process": False}
    )
    yield from serve_in_thread(plain)


@pytest.fixture()
def callers(settings: Settings, api_url: str) -> dict[Role, Caller]:
    return team(settings, api_url, Role.AGENT, Role.ADMIN)


def _post(url: str, caller: Caller, query: str, variables: dict[str, Any]) -> httpx.Response:
    headers = {"Authorization": f"Bearer {caller.key}", **ROUND_TRIPS}
    body = {"query": query, "variables": variables}
    return httpx.post(f"{url}/graphql", json=body, headers=headers, timeout=30)


def _both(
    caller: Caller, fast_url: str, plain_url: str, query: str, variables: dict[str, Any]
) -> tuple[httpx.Response, httpx.Response]:
    fast = _post(fast_url, caller, query, variables)
    plain = _post(plain_url, caller, query, variables)
    assert fast.status_code == plain.status_code
    return fast, plain


def _recall(key: Any) -> dict[str, Any]:
    return {"ns": NAMESPACE, "key": key}


def _memory(key: str, **fields: Any) -> dict[str, Any]:
    return {"input": {"kind": "SEMANTIC", "namespace": NAMESPACE, "key": key, "text": key} | fields}


def test_recall_answers_alike_and_logs_each_call_once(
    callers: dict[Role, Caller], api_url: str, plain_url: str
) -> None:
    agent, admin = callers[Role.AGENT], callers[Role.ADMIN]
    for key in ("a", "b", "c"):
        agent.data(REMEMBER, _memory(key, content={"n": key, "list": [1, None]}))
    stats = read_plans.STATS
    answered, declined = stats.answered, stats.declined
    keys: list[Any] = ["a", "b", "c", "missing", " ", "a" * 300, 5]
    for key in keys:
        fast, plain = _both(agent, api_url, plain_url, RECALL_KEY, _recall(key))
        assert fast.text == plain.text, key
        assert fast.json()["extensions"]["cypherRoundTrips"] <= 1
    # "b" and "c" were answered by the plan ("a" too where an earlier test taught it); the
    # missing and bad keys began as the plan's call and were answered by strawberry from its
    # outcome; 5 does not coerce.
    assert stats.answered - answered in (2, 3) and stats.declined - declined == 4
    reads = _settled_log(admin, ["read"], 2 * (len(keys) - 1))
    assert len(reads) == 2 * (len(keys) - 1)  # each call logged once, on each server
    outcomes = sorted(entry["outcome"] for entry in reads)
    assert outcomes.count("OK") == 6 and outcomes.count("NOT_FOUND") == 2


def test_remember_writes_once_per_call_and_refuses_alike(
    callers: dict[Role, Caller], api_url: str, plain_url: str
) -> None:
    agent, admin = callers[Role.AGENT], callers[Role.ADMIN]
    answered = read_plans.STATS.answered
    versions = [
        _post(api_url, agent, REMEMBER, _memory("kept", priority=n)).json()["data"]["remember"]
        for n in (1, 2, 3, 4)
    ]
    assert [v["version"] for v in versions] == [1, 2, 3, 4]
    assert [v["priority"] for v in versions] == [1, 2, 3, 4]
    assert read_plans.STATS.answered - answered >= 3  # the first may have been learned here
    refusals = [
        _memory("kept", priority=99),  # VALIDATION, before anything is written
        _memory("kept", kind="EPISODIC"),  # CONFLICT: the key holds a semantic record
        _memory("kept", expectedVersion=2),  # CONFLICT: stale
        _memory("fresh", expectedVersion=3),  # CONFLICT: a new key is at version 0
        {"input": {"kind": "NOPE"}},  # does not coerce
    ]
    for variables in refusals:
        fast, plain = _both(agent, api_url, plain_url, REMEMBER, variables)
        assert fast.text == plain.text, variables
        assert fast.json()["errors"]
    after = agent.data(RECALL_KEY, _recall("kept"))["recallMemory"]
    assert after["version"] == 4 and after["priority"] == 4
    fresh = _post(api_url, agent, RECALL_KEY, _recall("fresh")).json()
    assert fresh["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    writes = _settled_log(admin, ["create", "update", "revive"], 12)
    assert sorted(entry["outcome"] for entry in writes) == ["OK"] * 4 + ["REJECTED"] * 8


def _settled_log(admin: Caller, operations: list[str], expected: int) -> list[dict[str, Any]]:
    """The access log once it holds `expected` entries, or as it is after 5 s. Reading flushes
    the reading server's buffer only: the other server's entries arrive within its flush
    interval (access_log_flush_ms)."""
    deadline = time.monotonic() + 5
    while True:
        entries = list(log_entries(admin, operations=operations))
        if len(entries) >= expected or time.monotonic() > deadline:
            return entries
        time.sleep(0.1)
