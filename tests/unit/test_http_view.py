"""The direct path of the GraphQL view answers exactly as strawberry's own view does.

Each request goes to GraphQLApp (which answers plain JSON operations itself) and to strawberry's
generic view with the same hooks (GraphQL.__call__ on the same object). None of these requests
reaches a resolver that reads the graph, so no services are needed.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from starlette.types import Message
from strawberry.asgi import GraphQL

from app.api.read.http_view import GraphQLApp
from app.api.read.view_request import single_operation
from app.runtime import Services
from app.settings import Settings

JSON = b"application/json"
CASES: list[tuple[str, bytes, bytes]] = [
    ("typename", JSON, b'{"query": "{ __typename }"}'),
    ("charset", b"application/json; charset=utf-8", b'{"query": "{ __typename }"}'),
    ("validation error", JSON, b'{"query": "{ nope }"}'),
    ("parse error", JSON, b'{"query": "{ __typename "}'),
    ("variables null", JSON, b'{"query": "{ __typename }", "variables": null}'),
    ("named operation", JSON, b'{"query": "query A { __typename }", "operationName": "A"}'),
    ("unknown operation", JSON, b'{"query": "query A { __typename }", "operationName": "B"}'),
    (
        "two operations, no name",
        JSON,
        b'{"query": "query A { a: __typename } query B { b: __typename }"}',
    ),
    ("no query", JSON, b'{"variables": {}}'),
    ("query not a string", JSON, b'{"query": 5}'),
    ("not JSON", JSON, b"{nope"),
    ("a batch", JSON, b'[{"query": "{ __typename }"}]'),
    ("an unknown key", JSON, b'{"query": "{ __typename }", "other": 1}'),
    ("form body", b"application/x-www-form-urlencoded", b"query=%7B__typename%7D"),
]


def _app() -> GraphQLApp:
    settings = Settings.model_construct()
    services = Services(
        settings=settings,
        graph=None,  # type: ignore[arg-type]
        artifacts=None,  # type: ignore[arg-type]
        embedder=None,  # type: ignore[arg-type]
        indexer=None,  # type: ignore[arg-type]
        feed=None,  # type: ignore[arg-type]
    )
    return GraphQLApp(services, local_ide_assets=False)


def _call(handler: Any, content_type: bytes, body: bytes) -> tuple[int, dict[bytes, bytes], bytes]:
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/graphql",
        "raw_path": b"/graphql",
        "query_string": b"",
        "root_path": "",
        "scheme": "http",
        "server": ("testserver", 80),
        "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode())],
        "state": {},
    }
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    asyncio.run(handler(scope, receive, send))
    start, *bodies = sent
    headers = {k: v for k, v in start["headers"] if k in (b"content-type", b"content-length")}
    return start["status"], headers, b"".join(m.get("body", b"") for m in bodies)


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_direct_path_answers_as_strawberry_does(case: tuple[str, bytes, bytes]) -> None:
    _name, content_type, body = case
    app = _app()
    direct = _call(app, content_type, body)
    generic = _call(lambda *args: GraphQL.__call__(app, *args), content_type, body)
    assert direct == generic


def test_the_direct_path_takes_only_single_json_operations() -> None:
    scope = {"headers": [(b"content-type", JSON)]}
    taken = [
        name
        for name, kind, body in CASES
        if single_operation({"headers": [(b"content-type", kind)]}, body)
    ]
    assert taken == [
        "typename",
        "charset",
        "validation error",
        "parse error",
        "variables null",
        "named operation",
        "unknown operation",
        "two operations, no name",
    ]
    streaming = {"headers": [(b"content-type", JSON), (b"accept", b"multipart/mixed")]}
    assert single_operation(streaming, b'{"query": "{ __typename }"}') is None
    assert single_operation(scope, json.dumps({"query": "{ a }"}).encode()) == {"query": "{ a }"}


def test_a_batch_body_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Review E4: the view parsed the body, then strawberry's view parsed it again."""
    from app.api.edge import request_body
    from app.api.read import http_view

    parses: list[object] = []
    decode = request_body._DECODER.decode

    def counting(data: str, **options: Any) -> object:
        parses.append(data)
        return decode(data, **options)

    monkeypatch.setattr(request_body._DECODER, "decode", counting)
    batch = b'[{"query": "{ __typename }"}, {"query": "{ __typename }"}]'
    status, _headers, body = _call(_app(), JSON, batch)
    assert len(parses) == 1
    refusal = {"message": "Batching is not enabled", "extensions": {"code": "BAD_REQUEST"}}
    assert (status, json.loads(body)) == (400, {"errors": [refusal]})  # strawberry's answer
    assert http_view.REPLAYED.get() is None  # nothing kept after the request
