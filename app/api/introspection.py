"""Introspection without an API key: answered from a cache, and rate-limited per remote address.

GraphiQL introspects before its user has pasted a key, and the schema is published
(schema.graphql), so keyless introspection stays. But its answer is large (2.25 MB for 2.9 KB
of standard introspection query) and took 1.7 s to build: each distinct request is answered once
per process and then replayed (the schema does not change while the process runs), and each
remote address may send `per_minute` keyless introspections a minute, with bursts of as many.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    GraphQLError,
    OperationDefinitionNode,
    parse,
)
from starlette.types import ASGIApp, Message, Scope, Send

from app.api.context import ROUND_TRIPS_HEADER
from app.middleware import error_body, send_json

MAX_ANSWERS = 16
MAX_ADDRESSES = 10_000
# Parsing is the one GraphQL work done before a keyless request is refused; the standard
# introspection queries have 200 to 400 tokens.
MAX_TOKENS = 1_000


def selects_only_introspection(request: Any) -> bool:
    """True for a request (parsed JSON body) whose every operation selects only `__schema`,
    `__type`, `__typename`."""
    try:
        document = parse(request["query"], no_location=True, max_tokens=MAX_TOKENS)
    except (KeyError, TypeError, GraphQLError):
        return False
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    fragments = [d for d in document.definitions if isinstance(d, FragmentDefinitionNode)]
    if not operations or len(operations) + len(fragments) != len(document.definitions):
        return False
    # Fragments (GraphiQL's query spreads three) can only be spread below these root fields,
    # where validation holds them to introspection types.
    return all(
        isinstance(selection, FieldNode) and selection.name.value.startswith("__")
        for operation in operations
        for selection in operation.selection_set.selections
    )


@dataclass
class _Bucket:
    tokens: float
    updated: float


class RateLimit:
    """A token bucket per key: `per_minute` tokens a minute, holding at most as many."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def wait_s(self, key: str) -> float:
        """0 when the key may go now (a token is taken), else the seconds until it may."""
        now = time.monotonic()
        bucket = self._buckets.pop(key, None) or _Bucket(float(self.per_minute), now)
        refill = (now - bucket.updated) * self.per_minute / 60
        bucket.tokens, bucket.updated = min(self.per_minute, bucket.tokens + refill), now
        self._buckets[key] = bucket
        if len(self._buckets) > MAX_ADDRESSES:
            self._buckets.popitem(last=False)
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return 0.0
        return (1 - bucket.tokens) * 60 / self.per_minute


@dataclass(frozen=True)
class _Answer:
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes


class KeylessIntrospection:
    def __init__(self, app: ASGIApp, *, per_minute: int) -> None:
        self.app = app
        self.limit = RateLimit(per_minute)
        self._answers: OrderedDict[bytes, _Answer] = OrderedDict()

    async def __call__(self, scope: Scope, body: bytes, send: Send) -> None:
        address = (scope.get("client") or ("unknown",))[0]
        wait = self.limit.wait_s(address)
        if wait:
            seconds = math.ceil(wait)
            message = f"too many introspections without an API key; retry in {seconds} s"
            refusal = error_body(message, "RATE_LIMITED", retryAfterSeconds=seconds)
            await send_json(send, 429, refusal, [(b"retry-after", str(seconds).encode())])
            return
        key = _request_key(scope, body)
        answer = self._answers.get(key)
        if answer is None:
            answer = await self._answer(scope, body)
            if answer.status == 200:
                self._answers[key] = answer
                if len(self._answers) > MAX_ANSWERS:
                    self._answers.popitem(last=False)
        else:
            self._answers.move_to_end(key)
        start = {"type": "http.response.start", "status": answer.status, "headers": answer.headers}
        await send(start)
        await send({"type": "http.response.body", "body": answer.body})

    async def _answer(self, scope: Scope, body: bytes) -> _Answer:
        messages: list[Message] = []

        async def receive() -> Message:
            return {"type": "http.request", "body": body, "more_body": False}

        async def keep(message: Message) -> None:
            messages.append(message)

        await self.app(scope, receive, keep)
        start = next(m for m in messages if m["type"] == "http.response.start")
        bodies = [m.get("body", b"") for m in messages if m["type"] == "http.response.body"]
        return _Answer(start["status"], list(start.get("headers", [])), b"".join(bodies))


def _request_key(scope: Scope, body: bytes) -> bytes:
    """The request as far as its answer depends on it: the body, and whether it asked for the
    Cypher round-trip count."""
    headers = dict(scope["headers"])
    return hashlib.sha256(headers.get(ROUND_TRIPS_HEADER.encode(), b"") + b"\0" + body).digest()
