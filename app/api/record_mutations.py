"""The mutation shapes most record types share, each field declared in one statement:

    create_plan = creates(plans.create_plan, Plan, CreatePlanInput, "Create a plan ...")
    update_plan = updates(plans.update_plan, Plan, UpdatePlanInput, "...", id_name="plan_id")
    transition_asset = transitions(
        assets.transition_asset, Asset, AssetStatus, "...", id_name="asset_id"
    )

- `creates`: `(input, idempotencyKey)`, @idempotent (or just `(input)`); the domain function gets
  the input's fields as `fields`, those named `apart` each by its own name (`input_arguments`).
  It answers with the record as a node type, or with a payload of records and values
  (`load_payload`, app/api/resolve.py).
- `updates`: `(id, input)`; the domain function gets the id as `id_name` and the fields the
  caller sent as `changes` (`given_fields`; `required` ones may not be null).
- `transitions`: `(id, to)`; the domain function gets the id as `id_name` and `target`.

The field is the one a hand-written method would make: its GraphQL name comes from the attribute
it is assigned to, its arguments are those above in that order, its answer is loaded as the
caller selected it (`write`). A mutation of any other shape is a method.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import strawberry

from app.api.context import Info
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.inputs import given_fields, input_arguments
from app.api.read.nodes import load_written
from app.api.resolve import load_payload, run, write
from app.api.types.base import NodeType

Action = Callable[..., Awaitable[dict[str, Any]]]  # a domain function answering with a record
Creator = Callable[..., Awaitable[Any]]  # ... or with a result a payload is made of
Body = Callable[..., Awaitable[Any]]
Policy = Callable[[Info], Any]

_ARGUMENT = inspect.Parameter.POSITIONAL_OR_KEYWORD
_RESERVED = (
    inspect.Parameter("self", _ARGUMENT),
    inspect.Parameter("info", _ARGUMENT, annotation=Info),
)


def creates(
    action: Creator,
    answer_type: type,
    input_type: type,
    description: str,
    *,
    apart: tuple[str, ...] = (),
    policy: Policy | None = None,
    keyed: bool = True,
) -> Any:
    """A create from `input`, @idempotent unless not `keyed`; `policy(info)`, when given, is
    passed as `policy`."""
    load = _loader(answer_type)

    async def create(info: Info, input: Any, idempotency_key: str | None = None) -> Any:
        arguments = input_arguments(input, *apart)
        if policy is not None:
            arguments["policy"] = policy(info)
        return await load(info, answer_type, await run(info, action, **arguments))

    arguments = {"input": input_type} | ({"idempotency_key": IdempotencyKey} if keyed else {})
    return _mutation(create, answer_type, description, arguments, keyed=keyed)


def updates(
    action: Action,
    node_type: type,
    input_type: type,
    description: str,
    *,
    id_name: str,
    required: frozenset[str] = frozenset(),
) -> Any:
    """Changes the fields of record `id` that `input` gives."""

    async def update(info: Info, id: str, input: Any) -> Any:
        changes = given_fields(input, required=required)
        return await write(info, action, node_type, **{id_name: id}, changes=changes)

    arguments = {"id": strawberry.ID, "input": input_type}
    return _mutation(update, node_type, description, arguments)


def transitions(
    action: Action, node_type: type, status_type: type, description: str, *, id_name: str
) -> Any:
    """Moves record `id` to the status `to`."""

    async def transition(info: Info, id: str, to: Any) -> Any:
        return await write(info, action, node_type, **{id_name: id}, target=to)

    return _mutation(transition, node_type, description, {"id": strawberry.ID, "to": status_type})


def _mutation(
    body: Body,
    answer_type: type,
    description: str,
    arguments: dict[str, Any],
    *,
    keyed: bool = False,
) -> Any:
    """A strawberry mutation field whose resolver takes `arguments` (name: annotation; the
    idempotency key defaults to none) and runs `body(info, **arguments)`."""

    async def resolve(self: object, info: Info, **given: Any) -> Any:
        return await body(info, **given)

    parameters = [
        inspect.Parameter(name, _ARGUMENT, annotation=annotation, default=_default(annotation))
        for name, annotation in arguments.items()
    ]
    # strawberry and @idempotent read a resolver's arguments from its signature.
    signature = inspect.Signature([*_RESERVED, *parameters], return_annotation=answer_type)
    resolve.__dict__["__signature__"] = signature
    resolver = idempotent(resolve) if keyed else resolve
    return strawberry.mutation(resolver=resolver, description=description)


def _loader(answer_type: type) -> Callable[[Info, Any, Any], Awaitable[Any]]:
    return load_written if issubclass(answer_type, NodeType) else load_payload


def _default(annotation: Any) -> Any:
    return None if annotation is IdempotencyKey else inspect.Parameter.empty
