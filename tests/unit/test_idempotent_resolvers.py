"""`@idempotent` resolvers and `run_once` (app/api/idempotent.py, app/domain/kernel/idempotency.py)
with a small in-memory stand-in for the claim transaction: every argument of the resolver is part
of the request, a claim is the caller's own, and a unit of work the driver runs twice creates
once. The real claim (MERGE on Neo4j) is tested in tests/integration/test_idempotency*.py."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from app.api.idempotent import IdempotencyKey, create_once, idempotent
from app.api.schema import schema
from app.domain.kernel.errors import Conflict
from app.domain.kernel.idempotency import CLAIM, RECORD_RESULT
from app.domain.kernel.principal import Principal
from app.model.enums import Role

AGENT = Principal(client_id="c1", role=Role.AGENT, key_id="k1", agent_name="tester")
REVIEWER = Principal(client_id="c1", role=Role.REVIEWER, key_id="k2", agent_name="tester")


class ClaimTx:
    """Answers CLAIM and RECORD_RESULT over a dict of claims (no expiry: none expire here)."""

    def __init__(self, claims: dict[tuple[str, str, str], dict[str, Any]]) -> None:
        self.claims = claims

    async def run(self, query: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        where = (params["client_id"], params["caller"], params["key"])
        if query == CLAIM:
            claim = self.claims.setdefault(where, dict(params, result=None))
            return [dict(claim, claimed=claim["claim"] == params["claim"])]
        assert query == RECORD_RESULT
        self.claims[where]["result"] = params["result"]
        return []


@dataclass
class ClaimGraph:
    """Runs each transaction `attempts` times, as the driver does after a transient error: the
    work of every attempt but the last is rolled back."""

    attempts: int = 1
    claims: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)
    driver: None = None  # what TransactionGraph hands on; never used here
    database: str = "neo4j"

    async def in_transaction(self, work: Callable[[ClaimTx], Awaitable[Any]]) -> Any:
        for _ in range(self.attempts - 1):
            await work(ClaimTx(copy.deepcopy(self.claims)))  # rolled back
        committed = copy.deepcopy(self.claims)
        result = await work(ClaimTx(committed))
        self.claims = committed
        return result


def info_for(graph: ClaimGraph, principal: Principal) -> Any:
    settings = SimpleNamespace(idempotency_retention_s=60.0)
    context = SimpleNamespace(
        graph=graph, caller=lambda: principal, services=SimpleNamespace(settings=settings)
    )
    return SimpleNamespace(context=context, field_name="makeThing")


class Resolvers:
    def __init__(self) -> None:
        self.created: list[dict[str, Any]] = []

    @idempotent
    async def make_thing(
        self,
        info: Any,
        name: str,
        size: int = 1,
        tags: list[str] | None = None,
        idempotency_key: IdempotencyKey = None,
    ) -> dict[str, Any]:
        async def create(graph: Any) -> dict[str, Any]:
            made = {"id": len(self.created) + 1, "name": name, "size": size, "tags": tags}
            self.created.append(made)
            return made

        return await create_once(info, create)


def test_every_argument_of_the_resolver_is_part_of_the_request() -> None:
    resolvers, info = Resolvers(), info_for(ClaimGraph(), AGENT)

    def make(**arguments: Any) -> dict[str, Any]:
        return asyncio.run(resolvers.make_thing(info, idempotency_key="k-1", **arguments))

    first = make(name="reel")
    assert make(name="reel", size=1) == first  # a default given or not: the same request
    for other in ({"name": "reel", "size": 2}, {"name": "reel", "tags": ["x"]}, {"name": "x"}):
        with pytest.raises(Conflict):
            make(**other)
    assert resolvers.created == [first]
    unkeyed = asyncio.run(resolvers.make_thing(info, name="reel"))
    assert unkeyed["id"] == 2  # without a key the create just runs


def test_a_claim_is_the_callers_own() -> None:
    resolvers, graph = Resolvers(), ClaimGraph()
    for principal in (REVIEWER, AGENT, AGENT):
        asyncio.run(
            resolvers.make_thing(info_for(graph, principal), name="reel", idempotency_key="k")
        )
    # Same client, key and agent name, but a reviewer and an agent key: two callers.
    assert [made["id"] for made in resolvers.created] == [1, 2]
    assert {caller for _, caller, _ in graph.claims} == {"reviewer:tester", "agent:tester"}


def test_a_transaction_the_driver_runs_twice_keeps_one_claim_and_its_result() -> None:
    resolvers, graph = Resolvers(), ClaimGraph(attempts=2)
    info = info_for(graph, AGENT)
    first = asyncio.run(resolvers.make_thing(info, name="reel", idempotency_key="k"))
    assert len(resolvers.created) == 2 and first == resolvers.created[-1]
    graph.attempts = 1
    assert asyncio.run(resolvers.make_thing(info, name="reel", idempotency_key="k")) == first
    assert len(graph.claims) == 1 and len(resolvers.created) == 2


def test_every_mutation_that_takes_a_key_is_idempotent() -> None:
    mutation = schema.get_type_by_name("Mutation")
    keyed = [
        f.python_name
        for f in mutation.fields  # type: ignore[union-attr]
        if any(a.python_name == "idempotency_key" for a in f.arguments)
    ]
    assert len(keyed) >= 28
    for name in keyed:
        resolver = next(f for f in mutation.fields if f.python_name == name).base_resolver  # type: ignore[union-attr]
        assert getattr(resolver.wrapped_func, "__idempotent__", False), name


def test_the_decorator_and_create_once_go_together() -> None:
    async def no_key(self: Any, info: Any, name: str) -> None:
        return None

    with pytest.raises(TypeError, match="idempotency_key"):
        idempotent(no_key)
    with pytest.raises(RuntimeError, match="@idempotent"):
        asyncio.run(create_once(info_for(ClaimGraph(), AGENT), lambda graph: asyncio.sleep(0)))
