"""Introspection: answered from a cache, built off the event loop, and without a key rate-limited.

GraphiQL introspects before its user has pasted a key, and the schema is published
(schema.graphql), so keyless introspection stays. But its answer is large (0.5 to 2.25 MB) and
takes 0.2 to 1.7 s of CPU to build (app/api/edge/limits.py caps `__schema` and `__type` at two per
operation). So:
- answers are cached by what they depend on: the document as graphql-core prints it (spacing,
  comments and commas do not make a new entry), the operation name, variables and extensions;
- what the cache misses is built one at a time, in a worker thread (the event loop keeps serving
  other requests);
- without a key, each remote address may send `per_minute` introspections a minute, and at most
  `per_minute` answers a minute are built in all, whatever the addresses (rate_limit.py).
A keyed request that selects `__schema` or `__type` and nothing but introspection takes the same
cache and worker thread, without the keyless limits.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    GraphQLError,
    OperationDefinitionNode,
    parse,
    print_ast,
)
from limits import RateLimitItemPerMinute
from limits.aio.storage import Storage
from starlette.types import ASGIApp, Message, Scope, Send

from app.api.context import ROUND_TRIPS_HEADER
from app.api.edge.asgi import headers_of
from app.api.edge.rate_limit import RateLimit, in_memory, send_rate_limited
from app.api.edge.request_body import BadBody, request_json

MAX_ANSWERS = 16
# Parsing is the one GraphQL work done before a keyless request is refused; the standard
# introspection queries have 200 to 400 tokens.
MAX_TOKENS = 1_000
_ALL = "all addresses"
_PER_ADDRESS = "too many introspections without an API key from this address"
_BUILDS = "too many distinct introspections without an API key"
_ADVICE = ", or send an API key"
# A keyed body without these words is not looked at further (`__typename` alone is cheap).
_SCHEMA_FIELD = re.compile(rb"__(?:schema|type)\b")


def introspection_document(request: Any) -> DocumentNode | None:
    """The document of a request (parsed JSON body) whose every operation selects only
    `__schema`, `__type`, `__typename`; None for any other request."""
    try:
        document = parse(request["query"], no_location=True, max_tokens=MAX_TOKENS)
    except (KeyError, TypeError, GraphQLError):
        return None
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    fragments = [d for d in document.definitions if isinstance(d, FragmentDefinitionNode)]
    if not operations or len(operations) + len(fragments) != len(document.definitions):
        return None
    # Fragments (GraphiQL's query spreads three) can only be spread below these root fields,
    # where validation holds them to introspection types.
    only_introspection = all(
        isinstance(selection, FieldNode) and selection.name.value.startswith("__")
        for operation in operations
        for selection in operation.selection_set.selections
    )
    return document if only_introspection else None


@dataclass(frozen=True)
class _Answer:
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes


class IntrospectionAnswers:
    def __init__(self, app: ASGIApp, *, per_minute: int, storage: Storage | None = None) -> None:
        """`storage` holds the per-address counts (the app's rate-limit storage, shared by its
        processes; its own in memory if none). Builds cost this process's CPU: counted here."""
        self.app = app
        limits = [RateLimitItemPerMinute(per_minute)]
        shared = storage or in_memory()
        self.per_address = RateLimit(limits, scope="introspection:address", storage=shared)
        self.builds = RateLimit(limits, scope="introspection:builds", storage=in_memory())
        self._building = asyncio.Lock()
        self._answers: OrderedDict[bytes, _Answer] = OrderedDict()

    async def answered(self, scope: Scope, body: bytes, request: Any, send: Send) -> bool:
        """Answers (or refuses 429) a keyless request that only introspects; False, with
        nothing sent, for any other request."""
        document = introspection_document(request)
        if document is None:
            return False
        address = (scope.get("client") or ("unknown",))[0]
        if exceeded := await self.per_address.hit(address):
            await send_rate_limited(send, exceeded, _PER_ADDRESS, _ADVICE)
            return True
        key = _request_key(scope, document, request)
        answer = self._cached(key)
        if answer is None:
            if exceeded := await self.builds.hit(_ALL):
                await send_rate_limited(send, exceeded, _BUILDS, _ADVICE)
                return True
            answer = await self._build(scope, body, key)
        await _send_answer(send, answer)
        return True

    async def answered_with_key(self, scope: Scope, body: bytes, send: Send) -> bool:
        """Answers a keyed request that selects `__schema` or `__type` and only introspects;
        False, with nothing sent, for any other request."""
        if _SCHEMA_FIELD.search(body) is None:
            return False
        try:
            request = request_json(scope, body)
        except BadBody:  # the view refuses it
            return False
        document = introspection_document(request)
        if document is None:
            return False
        key = _request_key(scope, document, request)
        answer = self._cached(key) or await self._build(scope, body, key)
        await _send_answer(send, answer)
        return True

    def _cached(self, key: bytes) -> _Answer | None:
        answer = self._answers.get(key)
        if answer is not None:
            self._answers.move_to_end(key)
        return answer

    async def _build(self, scope: Scope, body: bytes, key: bytes) -> _Answer:
        async with self._building:
            answer = self._cached(key)  # built while this request waited
            if answer is None:
                # Its own event loop in a worker thread: introspection reads only the schema,
                # and the view's one shared structure it touches (the read plans' list of
                # documents that cannot become plans) takes single dict operations.
                answer = await asyncio.to_thread(asyncio.run, self._answer(scope, body))
                if answer.status == 200:
                    self._answers[key] = answer
                    if len(self._answers) > MAX_ANSWERS:
                        self._answers.popitem(last=False)
            return answer

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


async def _send_answer(send: Send, answer: _Answer) -> None:
    start = {"type": "http.response.start", "status": answer.status, "headers": answer.headers}
    await send(start)
    await send({"type": "http.response.body", "body": answer.body})


def _request_key(scope: Scope, document: DocumentNode, request: dict[str, Any]) -> bytes:
    """All the answer depends on: the document as printed (not as sent), the operation name,
    variables and extensions, and whether the Cypher round-trip count was asked for."""
    asked = {name: request.get(name) for name in ("operationName", "variables", "extensions")}
    parts = [
        headers_of(scope).get(ROUND_TRIPS_HEADER.encode(), b"").decode("latin-1"),
        print_ast(document),
        json.dumps(asked, sort_keys=True),
    ]
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).digest()
