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
caller selected relationships of it). `write_payload` does the same for a payload of records
and values (`load_payload`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from strawberry.types.base import get_object_definition
from strawberry.utils.str_converters import to_camel_case

from app.api.context import Info
from app.api.idempotent import once_if_idempotent
from app.api.read.nodes import load_written, load_written_at
from app.api.types.base import N, NodeType
from app.graph.change_feed import acting

R = TypeVar("R")
P = TypeVar("P")
SERVICES = frozenset({"artifacts", "embedder"})  # what a domain function may ask for by name
LEADING = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
PayloadFields = tuple[tuple[str, type[NodeType] | None], ...]
_PAYLOAD_FIELDS: dict[type, PayloadFields] = {}


async def run(info: Info, action: Callable[..., Awaitable[R]], /, **arguments: Any) -> R:
    """`action` run as the caller, with the graph and the services it names."""
    context = info.context
    principal = context.caller()
    services = {
        name: getattr(context.services, name)
        for name in services_named_by(action)
        if name not in arguments
    }
    with acting(info.field_name, key_id=principal.key_id, agent=principal.agent_name):
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


async def write_payload(
    info: Info, action: Callable[..., Awaitable[Any]], payload_type: type[P], /, **arguments: Any
) -> P:
    """`run`, then its result as `payload_type` (`load_payload`)."""
    return await load_payload(info, payload_type, await run(info, action, **arguments))


async def load_payload(info: Info, payload_type: type[P], written: Any) -> P:
    """A payload from a domain result whose attributes bear its field names: a record under a
    field of a node type is loaded as the caller selected it there (`load_written_at`), any
    other value is taken as it is."""
    values = {}
    for name, node_type in payload_fields(payload_type):
        value = getattr(written, name)
        if node_type is not None:
            value = await load_written_at(info, node_type, value, to_camel_case(name))
        values[name] = value
    return payload_type(**values)


def payload_fields(payload_type: type) -> PayloadFields:
    """Each field of a payload type with its node type (None where it holds a plain value)."""
    known = _PAYLOAD_FIELDS.get(payload_type)
    if known is None:
        fields = get_object_definition(payload_type, strict=True).fields
        known = tuple((field.python_name, _node_type(field.type)) for field in fields)
        _PAYLOAD_FIELDS[payload_type] = known
    return known


def _node_type(annotation: Any) -> type[NodeType] | None:
    return annotation if isinstance(annotation, type) and issubclass(annotation, NodeType) else None


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
