"""Pure ASGI middleware: request ids with access logs, the last-resort JSON 500, and the
request body's size and time limits. Every refusal here is JSON with a code, never plain text."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
import uuid
from collections.abc import Mapping
from typing import Any, cast

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.errors import MASKED_MESSAGE
from app.logs import request_id

log = logging.getLogger("app.http")
_NOT_IN_REQUEST_ID = re.compile(r"[^A-Za-z0-9._:-]")


def error_body(message: str, code: str, **extensions: Any) -> dict[str, Any]:
    return {"errors": [{"message": message, "extensions": {"code": code, **extensions}}]}


async def send_json(
    send: Send,
    status: int,
    body: Mapping[str, Any],
    extra_headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    payload = json.dumps(body).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
        *(extra_headers or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


def http_error_code(status: int) -> str:
    return "NOT_FOUND" if status == 404 else "BAD_REQUEST"


async def http_error(request: Request, error: Exception) -> Response:
    """Starlette's own refusals (no such path, a method the route does not take) as JSON; the
    application's exception handler for HTTPException."""
    refusal = cast(HTTPException, error)
    message = f"{refusal.detail}: {request.method} {request.url.path}"
    body = error_body(message, http_error_code(refusal.status_code))
    return JSONResponse(body, status_code=refusal.status_code, headers=refusal.headers)


class LastResort:
    """An exception that escapes the application is logged (with the request id) and answered
    500 INTERNAL in JSON. No request shape should get here: each is answered where it is met."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def noting_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, noting_send)
        except Exception:
            log.exception("unhandled error in %s %s", scope["method"], scope["path"])
            if not started:
                await send_json(send, 500, error_body(MASKED_MESSAGE, "INTERNAL"))


class RequestLog:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        incoming = dict(scope["headers"]).get(b"x-request-id", b"").decode("latin-1")
        rid = _NOT_IN_REQUEST_ID.sub("", incoming)[:64] or uuid.uuid4().hex
        request_id.set(rid)
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []), (b"x-request-id", rid.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            elapsed_ms = round((time.perf_counter() - started) * 1000, 2)
            fields = {
                "method": scope["method"],
                "path": scope["path"],
                "status": status,
                "ms": elapsed_ms,
            }
            log.info("request", extra={"fields": fields})


class BodyLimit:
    """Refuses bodies over the limit with 413, whether or not Content-Length was sent."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await send_json(send, 413, self._error())
            return
        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > self.max_bytes:
                raise BodyTooLarge
            return message

        try:
            await self.app(scope, limited_receive, send)
        except BodyTooLarge:
            await send_json(send, 413, self._error())

    def _error(self) -> dict[str, object]:
        message = f"request body is larger than {self.max_bytes} bytes; send less per request"
        return error_body(message, "PAYLOAD_TOO_LARGE")


class BodyTooLarge(Exception):
    pass


class BodyTimeout:
    """Answers 408 (and closes the connection) when a request's body has not all arrived within
    the limit: a slow client would otherwise hold a connection and a task indefinitely."""

    def __init__(self, app: ASGIApp, *, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        deadline = asyncio.get_running_loop().time() + self.seconds
        arrived = False

        async def timed_receive() -> Message:
            nonlocal arrived
            if arrived:  # later receives wait for a disconnect, which may take any time
                return await receive()
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                raise BodyTooSlow from None
            arrived = message["type"] != "http.request" or not message.get("more_body", False)
            return message

        try:
            await self.app(scope, timed_receive, send)
        except BodyTooSlow:
            message = f"the request body did not all arrive within {self.seconds:g} s"
            body = error_body(message, "REQUEST_TIMEOUT")
            await send_json(send, 408, body, [(b"connection", b"close")])


class BodyTooSlow(Exception):
    pass
