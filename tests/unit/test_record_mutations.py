"""The mutation fields app/api/record_mutations.py makes: the arguments a hand-written resolver
would take, in order, and the call of the domain function; payloads by `load_payload`. Every
such field over HTTP is tested in tests/integration (plans, assets, conversations, ...)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import strawberry

from app.api.assets.outputs import CreateAssetVariantPayload
from app.api.record_mutations import creates, transitions, updates
from app.api.resolve import payload_fields
from app.api.types.assets import AssetVariant
from app.domain.kernel.principal import Principal
from app.model.enums import AssetStatus
from tests.unit.test_idempotent_resolvers import ClaimGraph
from tests.unit.test_resolve import AGENT, info_for


@strawberry.input
class MakeInput:
    name: str
    size: int = 1


@strawberry.type
class Made:
    name: str
    size: int


calls: list[dict[str, Any]] = []


@dataclass(frozen=True)
class Making:
    """What the domain function answers with."""

    name: str
    size: int


async def make(graph: Any, *, principal: Principal, **arguments: Any) -> Making:
    calls.append({"principal": principal, **arguments})
    return Making(name=arguments["name"], size=arguments["fields"]["size"])


def _arguments(field: Any) -> list[str]:
    return [argument.python_name for argument in field.arguments]


def test_a_create_takes_the_input_then_the_key_and_is_idempotent() -> None:
    field = creates(make, Made, MakeInput, "Make one.", apart=("name",))
    assert _arguments(field) == ["input", "idempotency_key"]
    assert field.description == "Make one."
    resolver = field.base_resolver.wrapped_func
    assert getattr(resolver, "__idempotent__", False)
    calls.clear()
    info = info_for(ClaimGraph())
    made = asyncio.run(resolver(None, info=info, input=MakeInput(name="reel", size=3)))
    # The input's fields as `fields`, those named apart by their own names; the caller too.
    assert calls == [{"principal": AGENT, "name": "reel", "fields": {"size": 3}}]
    assert (made.name, made.size) == ("reel", 3)


def test_an_unkeyed_create_takes_only_the_input() -> None:
    field = creates(make, Made, MakeInput, "Make one.", keyed=False)
    assert _arguments(field) == ["input"]
    assert not getattr(field.base_resolver.wrapped_func, "__idempotent__", False)


def test_updates_and_transitions_take_the_id_first() -> None:
    update = updates(make, AssetVariant, MakeInput, "Change one.", id_name="variant_id")
    move = transitions(make, AssetVariant, AssetStatus, "Move one.", id_name="variant_id")
    assert _arguments(update) == ["id", "input"]
    assert _arguments(move) == ["id", "to"]


def test_a_payload_loads_its_records_and_copies_its_values() -> None:
    assert payload_fields(CreateAssetVariantPayload) == (
        ("variant", AssetVariant),
        ("deduplicated", None),
    )
    assert payload_fields(Made) == (("name", None), ("size", None))
