"""`run` (app/api/resolve.py): a domain function gets the graph, the services it names and the
caller; in an @idempotent resolver it is the create, once per call. The real claim (MERGE on
Neo4j) and every resolver over HTTP are tested in tests/integration."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from app.api.idempotent import IdempotencyKey, idempotent
from app.api.resolve import run, services_named_by
from app.domain.kernel.principal import Principal
from app.model.enums import Role
from tests.unit.test_idempotent_resolvers import ClaimGraph

AGENT = Principal(client_id="c1", role=Role.AGENT, key_id="k1", agent_name="tester")


def info_for(graph: Any) -> Any:
    services = SimpleNamespace(
        settings=SimpleNamespace(idempotency_retention_s=60.0),
        artifacts="the artifact store",
        embedder="the embedder",
    )
    context = SimpleNamespace(graph=graph, caller=lambda: AGENT, services=services)
    return SimpleNamespace(context=context, field_name="makeThing")


async def plain(graph: Any, *, principal: Principal, name: str) -> dict[str, Any]:
    return {"graph": graph, "principal": principal, "name": name}


async def stored(graph: Any, artifacts: Any, *, principal: Principal, name: str) -> dict[str, Any]:
    return {"graph": graph, "artifacts": artifacts, "principal": principal, "name": name}


async def searched(graph: Any, embedder: Any, *, principal: Principal) -> dict[str, Any]:
    return {"graph": graph, "embedder": embedder, "principal": principal}


def test_a_domain_function_gets_the_graph_the_services_it_names_and_the_caller() -> None:
    info = info_for("the graph")
    assert asyncio.run(run(info, plain, name="x")) == {
        "graph": "the graph",
        "principal": AGENT,
        "name": "x",
    }
    assert asyncio.run(run(info, stored, name="x"))["artifacts"] == "the artifact store"
    assert asyncio.run(run(info, searched))["embedder"] == "the embedder"
    # A service the resolver passes by name is passed instead (none, say).
    assert asyncio.run(run(info, stored, artifacts=None, name="x"))["artifacts"] is None


def test_a_domain_function_may_ask_only_for_known_services() -> None:
    async def odd(graph: Any, settings: Any, *, principal: Principal) -> None:
        return None

    assert services_named_by(stored) == ("artifacts",)
    with pytest.raises(TypeError, match="settings"):
        services_named_by(odd)


class Resolvers:
    def __init__(self) -> None:
        self.graphs: list[Any] = []

    async def record(self, graph: Any, *, principal: Principal, name: str) -> dict[str, Any]:
        self.graphs.append(graph)
        return {"id": len(self.graphs), "name": name}

    @idempotent
    async def make_thing(
        self, info: Any, name: str, idempotency_key: IdempotencyKey = None
    ) -> dict[str, Any]:
        return await run(info, self.record, name=name)

    @idempotent
    async def make_two(
        self, info: Any, name: str, idempotency_key: IdempotencyKey = None
    ) -> dict[str, Any]:
        await run(info, self.record, name=name)
        return await run(info, self.record, name=name)


def test_in_an_idempotent_resolver_run_is_the_create() -> None:
    resolvers, graph = Resolvers(), ClaimGraph()
    info = info_for(graph)
    first = asyncio.run(resolvers.make_thing(info, name="reel", idempotency_key="k"))
    assert asyncio.run(resolvers.make_thing(info, name="reel", idempotency_key="k")) == first
    assert len(resolvers.graphs) == 1 and resolvers.graphs[0] is not graph  # the claim's tx
    assert len(graph.claims) == 1
    asyncio.run(resolvers.make_thing(info, name="reel"))  # without a key: on the graph itself
    assert resolvers.graphs[-1] is graph


def test_an_idempotent_resolver_runs_one_create() -> None:
    resolvers = Resolvers()
    with pytest.raises(RuntimeError, match="second create"):
        asyncio.run(resolvers.make_two(info_for(ClaimGraph()), name="reel", idempotency_key="k"))
