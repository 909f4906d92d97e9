"""The `idempotencyKey` argument of the creates an agent may retry
(app/domain/kernel/idempotency.py).

A resolver that takes the key is decorated `@idempotent`, and its one domain call is the create
(`run` and `write` of app/api/resolve.py see to it):

    @strawberry.mutation(description=...)
    @idempotent
    async def create_plan(self, info: Info, input: CreatePlanInput,
                          idempotency_key: IdempotencyKey = None) -> Plan:
        return await write(info, plans.create_plan, Plan, fields=dataclasses.asdict(input))

The request a key is bound to is every argument the resolver was called with (defaults
included), taken by the decorator, so no argument can be left out of it. Without a key the
create just runs. With one, the create may run more than once (the driver repeats the claim's
transaction after a transient error): it runs on what the resolver gave it, which no domain
function changes. A resolver runs one create: a second under the same key would only replay
the first's result, so it is refused.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Annotated, Any, ParamSpec, TypeVar

import strawberry

from app.api.context import Info
from app.domain.kernel.idempotency import run_once
from app.graph.executor import GraphExecutor

P = ParamSpec("P")
T = TypeVar("T")
KEY_ARGUMENT = "idempotency_key"
NOT_REQUEST = frozenset({"self", "info", KEY_ARGUMENT})

IdempotencyKey = Annotated[
    str | None,
    strawberry.argument(
        description="Makes a retry safe: the same key (per client and caller, kept "
        "idempotencyRetentionS, 24 h by default) returns the first call's result instead of "
        "creating again; with a different request it is CONFLICT. E.g. a UUID per attempt."
    ),
]


@dataclass
class KeyedCall:
    """One call of an @idempotent resolver: its key, the arguments its fingerprint covers, and
    whether its create has run."""

    key: str | None
    request: dict[str, Any]
    created: bool = False


_current: ContextVar[KeyedCall | None] = ContextVar("idempotent_call", default=None)


def idempotent(resolver: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """Binds `create_once` in `resolver` to the resolver's own idempotency key and arguments."""
    signature = inspect.signature(resolver)
    if KEY_ARGUMENT not in signature.parameters:
        raise TypeError(f"{resolver.__qualname__} takes no {KEY_ARGUMENT} argument")

    @functools.wraps(resolver)  # strawberry reads the arguments through __wrapped__
    async def resolve(*args: P.args, **kwargs: P.kwargs) -> T:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        given = bound.arguments
        request = {name: value for name, value in given.items() if name not in NOT_REQUEST}
        token = _current.set(KeyedCall(given[KEY_ARGUMENT], request))
        try:
            return await resolver(*args, **kwargs)
        finally:
            _current.reset(token)

    resolve.__idempotent__ = True  # type: ignore[attr-defined]
    return resolve


async def create_once(info: Info, create: Callable[[GraphExecutor], Awaitable[T]]) -> T:
    """`create(graph)`; with an idempotency key, the first result of the same request by the
    same caller (app/domain/kernel/idempotency.py)."""
    call = _current.get()
    if call is None:
        raise RuntimeError("create_once is called only by an @idempotent resolver")
    if call.created:
        raise RuntimeError(f"{info.field_name} runs a second create in one @idempotent call")
    call.created = True
    graph = info.context.graph
    if call.key is None:
        return await create(graph)
    return await run_once(
        graph,
        info.context.caller(),
        key=call.key,
        operation=info.field_name,
        request=call.request,
        create=create,
        retention_s=info.context.services.settings.idempotency_retention_s,
    )


async def once_if_idempotent(info: Info, work: Callable[[GraphExecutor], Awaitable[T]]) -> T:
    """`work` as the create of an @idempotent resolver (`create_once`); in any other resolver
    `work(graph)`."""
    if _current.get() is None:
        return await work(info.context.graph)
    return await create_once(info, work)
