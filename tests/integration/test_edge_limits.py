"""The request edge against the real server (second review of issue 11, E-1 to E-6): heads too
large are refused 414/431 in JSON, introspection is capped and keyed introspection cached, keyless
bodies are not parsed beyond a small size, numbers must be finite, a WebSocket upgrade gets a JSON
answer, and a flood of readiness probes shares its checks."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from urllib.parse import urlsplit

import httpx
from graphql import get_introspection_query

from app.settings import Settings
from tests.integration.conftest import Caller

VIEWER = {"query": "{ viewer { clientId } }"}
# GraphiQL's introspection query with a `__type` beside its `__schema`: the two allowed.
TWO = get_introspection_query(descriptions=True).replace(
    "__schema", 'b: __type(name: "Query") { name } __schema', 1
)


def _exchange(api_url: str, request: bytes) -> bytes:
    url = urlsplit(api_url)
    with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _status_and_code(response: bytes) -> tuple[bytes, str]:
    head, body = response.split(b"\r\n\r\n", 1)
    assert b"content-type: application/json" in head.lower(), head
    return head.split(b" ")[1], json.loads(body)["errors"][0]["extensions"]["code"]


def _served(caller: Caller) -> None:
    body = caller.gql(VIEWER["query"])
    assert body == {"data": {"viewer": {"clientId": caller.client_id}}}


def test_a_url_or_headers_over_the_limit_are_refused_in_json(
    settings: Settings, api_url: str, alice: Caller
) -> None:
    """E-1: a 32 MB URL held the event loop 6 s; a 32 MB header was kept whole."""
    limit = settings.max_header_bytes
    long_url = b"GET /graphql?q=" + b"u" * limit + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    assert _status_and_code(_exchange(api_url, long_url)) == (b"414", "BAD_REQUEST")
    big_header = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"v" * limit + b"\r\n\r\n"
    assert _status_and_code(_exchange(api_url, big_header)) == (b"431", "BAD_REQUEST")
    within = b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: "
    within += b"v" * (limit // 2) + b"\r\n\r\n"
    assert _exchange(api_url, within).startswith(b"HTTP/1.1 200")
    _served(alice)


def test_a_websocket_upgrade_off_graphql_is_refused_in_json(api_url: str) -> None:
    """E-6: uvicorn answered `Upgrade: websocket` with an empty 403 where no WebSocket route
    is; subscriptions are served at /graphql only (tests/integration/test_change_feed.py)."""
    upgrade = (
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
        b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        b"Sec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n"
    )
    url = urlsplit(api_url)
    with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
        sock.sendall(upgrade)
        response = b""
        while b"\r\n\r\n" not in response or not response.endswith(b"}"):
            chunk = sock.recv(65536)
            assert chunk, response
            response += chunk
    assert _status_and_code(response) == (b"404", "NOT_FOUND")


def test_introspection_is_capped_per_operation_with_or_without_a_key(
    api_url: str, alice: Caller
) -> None:
    """E-2: 20 aliases of a full `__schema` (1,940 tokens) took 3.7 s and answered 9.4 MB."""
    aliased = "{ " + " ".join(f"s{n}: __schema {{ types {{ name }} }}" for n in range(20)) + " }"
    for headers in ({"Authorization": f"Bearer {alice.key}"}, {}):
        started = time.perf_counter()
        response = alice.http.post("/graphql", json={"query": aliased}, headers=headers)
        assert time.perf_counter() - started < 1.0
        assert response.status_code == 200
        [error] = response.json()["errors"]
        assert error["extensions"]["code"] == "GRAPHQL_VALIDATION"
        assert "__schema or __type 20 times. Allowed: 2" in error["message"]


def test_keyed_introspection_is_answered_and_replayed_from_the_cache(alice: Caller) -> None:
    headers = {"Authorization": f"Bearer {alice.key}"}
    first = alice.http.post("/graphql", json={"query": TWO}, headers=headers)
    again = alice.http.post("/graphql", json={"query": TWO + " # again"}, headers=headers)
    assert first.status_code == again.status_code == 200
    assert first.content == again.content  # the same cached answer
    data = first.json()["data"]
    assert data["b"] == {"name": "Query"} and len(data["__schema"]["types"]) > 50
    _served(alice)


def test_a_keyless_body_is_not_read_beyond_a_small_size(api_url: str, alice: Caller) -> None:
    """E-3: a 1 MB nested body without a key was parsed (0.36 s of event loop) before its 401."""
    deep = b"[" * 450_000 + b"]" * 450_000
    json_type = {"content-type": "application/json"}
    declared = httpx.post(f"{api_url}/graphql", content=deep, headers=json_type)
    chunked = httpx.post(f"{api_url}/graphql", content=iter([deep[:20_000]] * 3), headers=json_type)
    for response in (declared, chunked):
        assert response.status_code == 401, response.text
        assert response.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    small = httpx.post(f"{api_url}/graphql", content=b"[" * 5_000, headers=json_type)
    assert small.status_code == 400  # a small unusable body is still told what is wrong
    keyed = {**json_type, "Authorization": f"Bearer {alice.key}"}
    assert httpx.post(f"{api_url}/graphql", content=deep, headers=keyed).status_code == 400


def test_numbers_that_are_not_finite_are_refused(api_url: str, alice: Caller) -> None:
    """E-5: `1e999` was stored as Infinity, and later answers were not valid JSON."""
    headers = {"Authorization": f"Bearer {alice.key}", "content-type": "application/json"}
    body = b'{"query": "mutation($s: JSON!) { saveAgentState(agentName: \\"tester\\", state: $s)'
    body += b' { name } }", "variables": {"s": {"a": 1e999}}}'
    response = httpx.post(f"{api_url}/graphql", content=body, headers=headers)
    assert response.status_code == 400, response.text
    assert response.json()["errors"][0]["extensions"]["code"] == "BAD_REQUEST"
    literal = 'mutation { saveAgentState(agentName: "tester", state: {a: 1e999}) { name } }'
    [error] = alice.gql(literal)["errors"]
    assert error["extensions"]["code"] == "VALIDATION"
    assert error["message"].startswith("Argument 'state' has invalid value: JSON value holds")


FLOOD = """
import asyncio, json, sys
import httpx

async def main(url: str) -> None:
    async with httpx.AsyncClient(timeout=10, limits=httpx.Limits(max_connections=32)) as client:
        async def probe() -> int:
            return (await client.get(url + "/readyz")).status_code
        print(json.dumps(await asyncio.gather(*(probe() for _ in range(400)))))

asyncio.run(main(sys.argv[1]))
"""


def test_a_flood_of_readiness_probes_is_answered_ready(api_url: str) -> None:
    """E-4: each probe ran a Neo4j query and an S3 call (on 4 threads); a flood queued them
    past their time and reported "not ready". Now they share one run at a time (counted in
    tests/unit/test_readiness_checks.py). The flood comes from another process, as it would:
    its threads do not compete with the server's for the interpreter."""
    flood = subprocess.run(
        [sys.executable, "-c", FLOOD, api_url], capture_output=True, check=True, timeout=120
    )
    answers = json.loads(flood.stdout)
    assert len(answers) == 400 and set(answers) == {200}
