"""CORS for browser apps on other origins (issue: front-end apps' door): off by default; with
AGENTMEM_CORS_ALLOWED_ORIGINS, a preflight from a listed origin is answered for /graphql and
/mcp (credentials off), answers carry the origin and expose the request id, the edge's own
refusals carry it too, and an unlisted origin gets none."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from app.settings import Settings
from tests.integration.conftest import Caller, serve_in_thread

APP = "https://app.example.com"
OTHER = "https://evil.example.net"
PREFLIGHT = {
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization, content-type",
}


@pytest.fixture(scope="module")
def cors_url(settings: Settings) -> Iterator[str]:
    allowing = settings.model_copy(
        update={"cors_allowed_origins": (APP,), "embedding_worker_in_process": False}
    )
    yield from serve_in_thread(allowing)


@pytest.mark.parametrize("path", ["/graphql", "/mcp"])
def test_a_listed_origins_preflight_is_answered(cors_url: str, path: str) -> None:
    answer = httpx.options(f"{cors_url}{path}", headers={"Origin": APP, **PREFLIGHT})
    assert answer.status_code == 200
    assert answer.headers["access-control-allow-origin"] == APP
    assert "authorization" in answer.headers["access-control-allow-headers"].lower()
    assert "POST" in answer.headers["access-control-allow-methods"]
    assert "access-control-allow-credentials" not in answer.headers
    refused = httpx.options(f"{cors_url}{path}", headers={"Origin": OTHER, **PREFLIGHT})
    assert refused.status_code == 400 and "access-control-allow-origin" not in refused.headers


def test_answers_carry_the_origin_and_expose_the_request_id(
    cors_url: str, alice: Caller, settings: Settings
) -> None:
    headers = {"Origin": APP, "Authorization": f"Bearer {alice.key}"}
    answer = httpx.post(
        f"{cors_url}/graphql", json={"query": "{ viewer { clientId } }"}, headers=headers
    )
    assert (
        answer.status_code == 200 and answer.json()["data"]["viewer"]["clientId"] == alice.client_id
    )
    assert answer.headers["access-control-allow-origin"] == APP
    assert "x-request-id" in answer.headers["access-control-expose-headers"].lower()
    big = b"x" * (settings.max_body_bytes + 1)
    too_large = httpx.post(f"{cors_url}/graphql", content=big, headers=headers)
    assert too_large.status_code == 413
    assert too_large.headers["access-control-allow-origin"] == APP  # a browser can read why
    other = httpx.post(
        f"{cors_url}/graphql",
        json={"query": "{ __typename }"},
        headers={**headers, "Origin": OTHER},
    )
    assert "access-control-allow-origin" not in other.headers


def test_no_origin_is_allowed_by_default(api_url: str) -> None:
    answer = httpx.options(f"{api_url}/graphql", headers={"Origin": APP, **PREFLIGHT})
    assert "access-control-allow-origin" not in answer.headers
    posted = httpx.post(
        f"{api_url}/graphql", json={"query": "{ __typename }"}, headers={"Origin": APP}
    )
    assert "access-control-allow-origin" not in posted.headers
