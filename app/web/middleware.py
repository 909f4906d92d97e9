"""The request edge: one pure ASGI middleware that every HTTP request passes, in one pass.

- a request id (the client's `X-Request-Id` when it is sane, else one made here) on the
  response and in every log line, and an access log line per request; the request's facts for
  the memory access log (client address, `X-Session-Id`: app/domain/kernel/request_facts.py);
- the body's limits and the request's deadline (app/web/body_limits.py, app/request_deadline.py);
- the request's metrics and, when tracing is on, its span (app/web/metrics.py,
  app/runtime/telemetry.py): the operation and error code the layers inside noted, the Cypher
  calls counted for it;
- the last resort: an exception that escapes the application is logged (with the request id)
  and answered 500 INTERNAL in JSON. No request shape should get there: each is answered where
  it is met.
These were five middleware layers; each cost a few µs of every request (second review E-7).
Every refusal is JSON with a code, never plain text.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import re
import time
from collections.abc import Mapping
from typing import cast

from opentelemetry.trace import Tracer
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.edge.asgi import error_body, headers_of, http_error_code, send_json
from app.api.edge.outcome import Outcome, start_outcome
from app.api.errors import MASKED_MESSAGE
from app.domain.kernel.request_facts import start_request
from app.graph.round_trips import RoundTrips, start_counting
from app.logs import request_id
from app.request_deadline import request_deadline
from app.runtime.telemetry import RequestSpan
from app.web.body_limits import (
    BodyReceiver,
    BodyTooLarge,
    BodyTooSlow,
    declared_size,
    refuse_too_large,
    refuse_too_slow,
)
from app.web.metrics import RequestMetrics

log = logging.getLogger("app.http")
_NOT_IN_REQUEST_ID = re.compile(r"[^A-Za-z0-9._:-]")
# Request ids made here: 32 hex digits, a random per-process half and a counter (as unique as
# uuid4 for this purpose, without a system call per request).
_PROCESS_PART = os.urandom(8).hex()
_SEQUENCE = itertools.count()


async def http_error(request: Request, error: Exception) -> Response:
    """Starlette's own refusals (no such path, a method the route does not take) as JSON; the
    application's exception handler for HTTPException."""
    refusal = cast(HTTPException, error)
    message = f"{refusal.detail}: {request.method} {request.url.path}"
    body = error_body(message, http_error_code(refusal.status_code))
    return JSONResponse(body, status_code=refusal.status_code, headers=refusal.headers)


def _header_id(headers: Mapping[bytes, bytes], name: bytes) -> str | None:
    """A client-chosen id header, kept only in its sane characters (at most 64)."""
    incoming = headers.get(name)
    if incoming:
        return _NOT_IN_REQUEST_ID.sub("", incoming.decode("latin-1"))[:64] or None
    return None


def _request_id(headers: Mapping[bytes, bytes]) -> str:
    return _header_id(headers, b"x-request-id") or f"{_PROCESS_PART}{next(_SEQUENCE):016x}"


def _client_address(scope: Scope) -> str | None:
    client = scope.get("client")
    return str(client[0])[:45] if client else None  # 45: the longest IPv6 text (seed 004)


class _Reply:
    """The request's `send`: adds the request id to the response, and notes its status."""

    __slots__ = ("_send", "_id_header", "status", "started")

    def __init__(self, send: Send, rid: str) -> None:
        self._send = send
        self._id_header = (b"x-request-id", rid.encode())
        self.status = 500  # what the log says if nothing was sent
        self.started = False

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.started = True
            message["headers"] = [*message.get("headers", []), self._id_header]
        await self._send(message)


class RequestEdge:
    def __init__(
        self,
        app: ASGIApp,
        *,
        max_body_bytes: int,
        body_timeout_s: float,
        deadline_s: float,
        metrics: RequestMetrics | None = None,
        tracer: Tracer | None = None,
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.body_timeout_s = body_timeout_s
        self.deadline_s = deadline_s
        self.metrics = metrics or RequestMetrics(())  # no routes known: paths are "other"
        self.tracer = tracer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # the lifespan passes through untouched
            await self.app(scope, receive, send)
            return
        headers = headers_of(scope)
        rid = _request_id(headers)
        request_id.set(rid)
        start_request(_client_address(scope), _header_id(headers, b"x-session-id"))
        outcome, trips = start_outcome(), start_counting()
        route = self.metrics.route(scope["path"])
        span = RequestSpan(self.tracer, scope["method"], route) if self.tracer else None
        started = time.perf_counter()
        reply = _Reply(send, rid)
        try:
            if declared_size(headers) > self.max_body_bytes:
                await refuse_too_large(reply, self.max_body_bytes)
            else:
                await self._bounded(scope, receive, reply)
        except Exception:
            log.exception("unhandled error in %s %s", scope["method"], scope["path"])
            if not reply.started:
                await send_json(reply, 500, error_body(MASKED_MESSAGE, "INTERNAL"))
        finally:
            elapsed = time.perf_counter() - started
            self._measured(scope, reply.status, elapsed, outcome, trips, span)
            fields = {
                "method": scope["method"],
                "path": scope["path"],
                "status": reply.status,
                "ms": round(elapsed * 1000, 2),
            }
            log.info("request", extra={"fields": fields})

    def _measured(
        self,
        scope: Scope,
        status: int,
        elapsed: float,
        outcome: Outcome,
        trips: RoundTrips,
        span: RequestSpan | None,
    ) -> None:
        operation = self.metrics.operation(outcome, scope["path"])
        self.metrics.record(operation, status, outcome.code, elapsed, trips)
        if span is not None:
            span.close(operation if outcome.operation is not None else None, status, outcome.code)

    async def _bounded(self, scope: Scope, receive: Receive, reply: _Reply) -> None:
        arrive_by = asyncio.get_running_loop().time() + self.body_timeout_s
        with request_deadline(self.deadline_s) as deadline:
            body = BodyReceiver(
                receive, max_bytes=self.max_body_bytes, arrive_by=arrive_by, deadline=deadline
            )
            try:
                await self.app(scope, body, reply)
            except BodyTooLarge:
                if reply.started:
                    raise
                await refuse_too_large(reply, self.max_body_bytes)
            except BodyTooSlow:
                if reply.started:
                    raise
                await refuse_too_slow(reply, self.body_timeout_s)
