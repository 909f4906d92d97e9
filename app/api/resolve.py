"""Thin resolvers: a resolver names a domain function, the arguments that are its own, and the
GraphQL type of the record it answers with; `write` does the rest.

    @strawberry.mutation(description="Change a plan's fields (not its status).")
    async def update_plan(self, info: Info, id: strawberry.ID, input: UpdatePlanInput) -> Plan:
        return await write(info, plans.update_plan, Plan, plan_id=id, changes=...)

`run(info, action, **arguments)` calls `action(graph, <services>, principal=<the caller>,
**arguments)`. The parameters a domain function takes before its keywords name the services it
needs (`graph`, then `artifacts` or `embedder`), so its resolver does not restate them; one the
resolver gives by name (`artifacts=None`, say) is passed instead. In an @idempotent resolver the
call is its create (app/api/idempotent.py). `write` then loads the written record as the
resolver's GraphQL type (`load_written`: from the record itself, or one more query when the
caller selected relationships of it).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from app.api.context import Info
from app.api.idempotent import once_if_idempotent
from app.api.read.nodes import load_written
from app.api.types.base import N

R = TypeVar("R")
SERVICES = frozenset({"artifacts", "embedder"})  # what a domain function may ask for by name
LEADING = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


async def run(info: Info, action: Callable[..., Awaitable[R]], /, **arguments: Any) -> R:
    """`action` run as the caller, with the graph and the services it names."""
    context = info.context
    principal = context.caller()
    services = {
        name: getattr(context.services, name)
        for name in services_named_by(action)
        if name not in arguments
    }
    return await once_if_idempotent(
        info, lambda graph: action(graph, **services, principal=principal, **arguments)
    )


async def write(
    info: Info,
    action: Callable[..., Awaitable[dict[str, Any]]],
    node_type: type[N],
    /,
    **arguments: Any,
) -> N:
    """`run`, then the record it wrote as `node_type`."""
    return await load_written(info, node_type, await run(info, action, **arguments))


@functools.cache
def services_named_by(action: Callable[..., Any]) -> tuple[str, ...]:
    """The services `action` takes after the graph and before its keywords."""
    _graph, *leading = (
        parameter.name
        for parameter in inspect.signature(action).parameters.values()
        if parameter.kind in LEADING
    )
    unknown = set(leading) - SERVICES
    if unknown:
        raise TypeError(
            f"{action.__qualname__} takes {sorted(unknown)} before its keywords: a domain "
            f"function takes the graph, then any of {sorted(SERVICES)}"
        )
    return tuple(leading)
