"""The `idempotencyKey` argument of the creates an agent may retry, and the one call that
honours it (app/domain/idempotency.py): without a key the create just runs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

import strawberry

from app.api.context import Info
from app.domain.idempotency import run_once
from app.graph.executor import GraphExecutor

T = TypeVar("T")

IdempotencyKey = Annotated[
    str | None,
    strawberry.argument(
        description="Makes a retry safe: the same key (per client, kept "
        "idempotencyRetentionS, 24 h by default) returns the first call's result instead of "
        "creating again; with a different request it is CONFLICT. E.g. a UUID per attempt."
    ),
]


async def once(
    info: Info,
    operation: str,
    key: str | None,
    request: dict[str, Any],
    create: Callable[[GraphExecutor], Awaitable[T]],
) -> T:
    """`create(graph)`, or with a key the first result of this request (`request`: the
    mutation's arguments other than the key, which its fingerprint covers)."""
    graph = info.context.graph
    if key is None:
        return await create(graph)
    return await run_once(
        graph,
        info.context.caller(),
        key=key,
        operation=operation,
        request=request,
        create=create,
        retention_s=info.context.services.settings.idempotency_retention_s,
    )
