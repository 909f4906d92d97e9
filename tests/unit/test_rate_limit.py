"""Rate limits (app/api/edge/rate_limit.py, issue 13): limits per role in settings, parsed at
start-up; counts per key in fixed windows; the 429 a refused request gets."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import pytest
from limits.aio.storage import MemoryStorage
from pydantic import ValidationError
from starlette.types import Message

from app.api.edge.rate_limit import (
    Exceeded,
    KeyRateLimits,
    RateLimit,
    in_memory,
    rate_limit_storage,
    send_rate_limited,
)
from app.domain.kernel.principal import Principal
from app.model.enums import Role
from app.settings import DEFAULT_KEY_RATE_LIMIT, Settings, rate_limit_items


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The wall clock `limits` reads (time.time), moved only by the test."""
    now = [1_000_000.25]
    monkeypatch.setattr(time, "time", lambda: now[0])
    return now


@pytest.fixture
def only_given_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Settings see only what a test sets: no AGENTMEM_* variable of the caller, no .env."""
    monkeypatch.chdir(tmp_path)
    for name in [name for name in os.environ if name.startswith("AGENTMEM_")]:
        monkeypatch.delenv(name)


def _principal(role: Role, key_id: str) -> Principal:
    return Principal(client_id="c", role=role, key_id=key_id, agent_name="a")


@pytest.mark.usefixtures("only_given_settings")
def test_every_role_has_the_default_and_a_role_left_out_keeps_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert Settings().key_rate_limits == dict.fromkeys(Role, DEFAULT_KEY_RATE_LIMIT)
    monkeypatch.setenv("AGENTMEM_KEY_RATE_LIMITS", '{"agent": "5/second", "analyst": ""}')
    limits = Settings().key_rate_limits
    assert limits[Role.AGENT] == "5/second" and limits[Role.ANALYST] == ""
    assert limits[Role.REVIEWER] == limits[Role.ADMIN] == DEFAULT_KEY_RATE_LIMIT


@pytest.mark.usefixtures("only_given_settings")
@pytest.mark.parametrize(
    ("value", "named"),
    [
        ('{"agent": "lots/minute"}', "the agent limit 'lots/minute' is not a usable rate limit"),
        ('{"admin": "0/second"}', "a limit of 0 requests refuses everything"),
        ('{"robot": "5/second"}', "'agent', 'reviewer', 'analyst' or 'admin'"),
    ],
)
def test_a_bad_limit_stops_start_up_naming_it(
    monkeypatch: pytest.MonkeyPatch, value: str, named: str
) -> None:
    monkeypatch.setenv("AGENTMEM_KEY_RATE_LIMITS", value)
    with pytest.raises(ValidationError, match="key_rate_limits") as refused:
        Settings()
    assert named in str(refused.value)


def test_the_notation_takes_several_limits_and_empty_means_none() -> None:
    both = rate_limit_items("10/second;5000/hour")
    assert [(item.amount, item.get_expiry()) for item in both] == [(10, 1), (5000, 3600)]
    assert rate_limit_items("") == rate_limit_items("  ") == []


def test_a_key_goes_over_its_window_and_learns_when_it_ends(clock: list[float]) -> None:
    limit = RateLimit(rate_limit_items("3/minute"), scope="t", storage=in_memory())

    async def scenario() -> list[Exceeded | None]:
        hits = [await limit.hit("noisy") for _ in range(3)]
        clock[0] += 20
        hits.append(await limit.hit("noisy"))
        hits.append(await limit.hit("quiet"))  # a key of its own
        clock[0] += 39.5  # 0.5 s of the window left: a whole second to wait
        hits.append(await limit.hit("noisy"))
        clock[0] += 0.5
        hits.append(await limit.hit("noisy"))  # a new window
        return hits

    over = "3 per minute"
    expected = [None, None, None, Exceeded(over, 40), None, Exceeded(over, 1), None]
    assert asyncio.run(scenario()) == expected


def test_each_of_several_limits_counts_and_the_one_exceeded_is_named(clock: list[float]) -> None:
    limit = RateLimit(rate_limit_items("2/second;3/minute"), scope="t", storage=in_memory())

    async def scenario() -> list[Exceeded | None]:
        hits = [await limit.hit("k") for _ in range(3)]
        clock[0] += 1
        return [*hits, await limit.hit("k"), await limit.hit("k")]

    assert asyncio.run(scenario()) == [
        None,
        None,
        Exceeded("2 per second", 1),
        None,  # the second's window is new; the minute's third request
        Exceeded("3 per minute", 59),
    ]


def test_limits_are_per_role_and_per_key(clock: list[float]) -> None:
    by_role = {Role.AGENT: "2/second", Role.ANALYST: "", Role.ADMIN: "1/second"}
    limits = KeyRateLimits(by_role, in_memory())

    async def scenario() -> dict[str, list[bool]]:
        callers = {
            "agent a": _principal(Role.AGENT, "a"),
            "agent b": _principal(Role.AGENT, "b"),
            "analyst": _principal(Role.ANALYST, "c"),
            "admin": _principal(Role.ADMIN, "d"),
            "reviewer (no entry)": _principal(Role.REVIEWER, "e"),
        }
        refused: dict[str, list[bool]] = {name: [] for name in callers}
        for _ in range(4):
            for name, principal in callers.items():
                refused[name].append(await limits.hit(principal) is not None)
        return refused

    assert asyncio.run(scenario()) == {
        "agent a": [False, False, True, True],
        "agent b": [False, False, True, True],
        "analyst": [False] * 4,
        "admin": [False, True, True, True],
        "reviewer (no entry)": [False] * 4,
    }


def test_the_refusal_is_429_with_retry_after_and_the_edge_json_shape() -> None:
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    exceeded = Exceeded("5 per 3 seconds", 1)
    asyncio.run(send_rate_limited(send, exceeded, "too many requests", ", or wait"))
    start, body = sent
    assert start["status"] == 429 and (b"retry-after", b"1") in start["headers"]
    assert json.loads(body["body"]) == {
        "errors": [
            {
                "message": "too many requests (limit: 5 per 3 seconds); retry in 1 s, or wait",
                "extensions": {"code": "RATE_LIMITED", "retryAfterSeconds": 1},
            }
        ]
    }


def test_the_storage_uri_is_checked_when_the_app_is_built() -> None:
    assert rate_limit_storage("memory://") is not None
    with pytest.raises(ValueError, match="AGENTMEM_RATE_LIMIT_STORAGE_URI 'nope://x'"):
        rate_limit_storage("nope://x")


class DownStorage(MemoryStorage):
    """A storage that does not answer (as a redis server that is down)."""

    async def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        raise ValueError("storage not answering")


def test_a_storage_that_fails_leaves_requests_served_uncounted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    storage = DownStorage(wrap_exceptions=True)
    limit = RateLimit(rate_limit_items("1/minute"), scope="t", storage=storage)

    async def scenario() -> list[Exceeded | None]:
        return [await limit.hit("k") for _ in range(2)]

    assert asyncio.run(scenario()) == [None, None]
    assert "rate limit t not counted: storage not answering" in caplog.text
