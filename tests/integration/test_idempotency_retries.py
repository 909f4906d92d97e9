"""Idempotent creates under a driver retry, and whose claim a key is (issue 11 review), over real
HTTP, Neo4j and S3: when the driver runs a claim's transaction again (as after a transient
error), every create still answers once with one result; an idempotency key is the caller's
own, so another caller of the client (another role or agent) never replays its result and runs
its own checks instead."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from neo4j import AsyncManagedTransaction
from neo4j.exceptions import SessionExpired
from strawberry.utils.str_converters import to_camel_case

from app.api.schema import schema
from app.domain.kernel.idempotency import RECORD_RESULT
from app.model.enums import Role
from app.settings import Settings
from tests.integration.asset_helpers import error_code
from tests.integration.client_helpers import client_state, colleague
from tests.integration.conftest import Caller
from tests.integration.idempotency_cases import CASES, case_caller, first_field, keyed_mutation


class DriverRetry:
    """Once armed, fails the next claim transaction at its end with a retryable error: the
    driver rolls it back and runs the whole unit of work again in a new transaction."""

    def __init__(self) -> None:
        self.armed = False
        self.fired = 0

    def take(self, query: str) -> bool:
        if self.armed and query == RECORD_RESULT:
            self.armed = False
            self.fired += 1
            return True
        return False


@pytest.fixture
def driver_retry(monkeypatch: pytest.MonkeyPatch) -> Iterator[DriverRetry]:
    retry = DriverRetry()
    run = AsyncManagedTransaction.run

    async def failing_once(tx: AsyncManagedTransaction, query: Any, *args: Any, **kw: Any) -> Any:
        if retry.take(query):
            raise SessionExpired("forced by the test: the driver retries the transaction")
        return await run(tx, query, *args, **kw)

    # The API runs in this process (a uvicorn thread), so it sends through the patched class.
    monkeypatch.setattr(AsyncManagedTransaction, "run", failing_once)
    yield retry


def test_the_cases_cover_every_create_that_takes_a_key() -> None:
    mutation = schema.get_type_by_name("Mutation")
    keyed = {
        to_camel_case(f.python_name)
        for f in mutation.fields  # type: ignore[union-attr]
        if any(argument.python_name == "idempotency_key" for argument in f.arguments)
    }
    assert set(CASES) == keyed


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_create_the_driver_runs_twice_answers_once(
    name: str, alice: Caller, neo4j_session: Any, driver_retry: DriverRetry, settings: Settings
) -> None:
    caller = case_caller(name, alice, settings, neo4j_session)
    document, variables = CASES[name](caller)
    keyed = variables | {"k": f"{name}-{uuid.uuid4()}"}
    driver_retry.armed = True
    first = caller.data(document, keyed)
    assert driver_retry.fired == 1  # the first attempt was rolled back and run again
    written = client_state(neo4j_session, alice.client_id)
    assert caller.data(document, keyed) == first
    assert client_state(neo4j_session, alice.client_id) == written


SAVE = keyed_mutation(
    "saveAgentState", "$s: JSON!, $a: String", "state: $s, agentName: $a", "name stateVersion"
)


def test_a_key_is_the_callers_own_and_replays_only_to_it(
    settings: Settings, alice: Caller, neo4j_session: Any
) -> None:
    # A reviewer key and an agent key with the same agent name: not the same caller.
    reviewer = colleague(settings, neo4j_session, alice, Role.REVIEWER, "tester")
    for_brad = {"s": {"step": 1}, "a": "brad", "k": "shared-key"}
    saved = first_field(reviewer, SAVE, for_brad)
    assert saved == {"name": "brad", "stateVersion": 1}
    before = client_state(neo4j_session, alice.client_id)
    refused = alice.gql(SAVE, for_brad)  # the agent key runs its own checks, replays nothing
    assert error_code(refused) == "FORBIDDEN", refused
    assert refused["errors"][0]["extensions"]["bound_agent"] == "tester"
    assert client_state(neo4j_session, alice.client_id) == before
    # Its own request with the same key is its own claim, not the reviewer's (no CONFLICT).
    own = first_field(alice, SAVE, {"s": {"step": 9}, "a": None, "k": "shared-key"})
    assert own == {"name": "tester", "stateVersion": 1}
    # Each caller still replays its own first result.
    assert first_field(reviewer, SAVE, for_brad) == saved
    assert first_field(alice, SAVE, {"s": {"step": 9}, "a": None, "k": "shared-key"}) == own
    # Another key of the same agent is the same caller (a rotated key, say): it replays.
    twin = colleague(settings, neo4j_session, alice, Role.AGENT, "tester")
    assert first_field(twin, SAVE, {"s": {"step": 9}, "a": None, "k": "shared-key"}) == own
    assert error_code(twin.gql(SAVE, {"s": {"step": 8}, "a": None, "k": "shared-key"})) == (
        "CONFLICT"
    )
