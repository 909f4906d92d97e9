"""ASGI helpers shared by the middleware, the key check, the GraphQL view and the HTTP protocol:
the request's headers read once, and one way to send a JSON answer."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from starlette.types import Scope, Send

from app.api.edge.outcome import note_code_of

_HEADERS = "agentmem.headers"
JSON_CONTENT = (b"content-type", b"application/json")


def headers_of(scope: Scope) -> dict[bytes, bytes]:
    """The request's headers by lower-case name, built once per request (several layers read
    them) and kept in the scope (the last value wins where a name repeats)."""
    headers = scope.get(_HEADERS)
    if headers is None:
        headers = scope[_HEADERS] = dict(scope["headers"])
    return headers


def error_body(message: str, code: str, **extensions: Any) -> dict[str, Any]:
    """Every refusal's body; its code is the request's (app/api/edge/outcome.py)."""
    note_code_of(code)
    return {"errors": [{"message": message, "extensions": {"code": code, **extensions}}]}


def http_error_code(status: int) -> str:
    return "NOT_FOUND" if status == 404 else "BAD_REQUEST"


def json_payload(body: Any) -> bytes:
    # Compact, as strawberry encodes its answers: the direct path's bytes are the same.
    return json.dumps(body, separators=(",", ":")).encode()


async def send_json(
    send: Send,
    status: int,
    body: Mapping[str, Any] | list[Any],
    headers: Iterable[tuple[bytes, bytes]] = (),
) -> None:
    """Sends a whole JSON response: every answer the application writes itself goes here."""
    payload = json_payload(body)
    head = [JSON_CONTENT, (b"content-length", str(len(payload)).encode()), *headers]
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": payload})


def raw_json_response(status_line: bytes, body: Mapping[str, Any]) -> bytes:
    """A JSON response as bytes on the wire, for the HTTP protocol's own refusals (sent before
    any ASGI request exists), closing the connection."""
    payload = json_payload(body)
    head = [
        status_line,
        b": ".join(JSON_CONTENT),
        b"content-length: " + str(len(payload)).encode(),
        b"connection: close",
    ]
    return b"\r\n".join(head) + b"\r\n\r\n" + payload
