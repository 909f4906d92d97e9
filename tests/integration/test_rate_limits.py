"""Per-key rate limits (issue 13), on a server of its own with a small limit for agent keys: a
noisy key is refused 429 with Retry-After while another agent key is served, and is served
again once its window has ended."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from app.model.enums import Role
from app.settings import Settings
from tests.integration.conftest import Caller, new_caller, serve_in_thread

PER_WINDOW, WINDOW_S = 5, 3
VIEWER = "{ viewer { clientId } }"


@pytest.fixture(scope="module")
def limited_url(settings: Settings) -> Iterator[str]:
    limits = {**settings.key_rate_limits, Role.AGENT: f"{PER_WINDOW}/{WINDOW_S} seconds"}
    limits[Role.REVIEWER] = ""  # switched off
    limited = settings.model_copy(
        update={"key_rate_limits": limits, "embedding_worker_in_process": False}
    )
    yield from serve_in_thread(limited)


def _post(caller: Caller, query: str = VIEWER) -> httpx.Response:
    headers = {"Authorization": f"Bearer {caller.key}"}
    return caller.http.post("/graphql", json={"query": query}, headers=headers)


def test_a_noisy_key_is_throttled_while_another_is_served(
    settings: Settings, limited_url: str
) -> None:
    noisy, quiet = new_caller(settings, limited_url), new_caller(settings, limited_url)
    served = [_post(noisy) for _ in range(PER_WINDOW)]
    assert [response.status_code for response in served] == [200] * PER_WINDOW
    assert served[0].json()["data"]["viewer"]["clientId"] == noisy.client_id

    refused, refused_at = _post(noisy), time.monotonic()
    assert refused.status_code == 429, refused.text
    retry_after = int(refused.headers["retry-after"])
    assert 1 <= retry_after <= WINDOW_S
    [error] = refused.json()["errors"]
    assert error["extensions"] == {"code": "RATE_LIMITED", "retryAfterSeconds": retry_after}
    assert "role agent" in error["message"]
    assert f"limit: {PER_WINDOW} per {WINDOW_S} seconds" in error["message"]
    # Every request of the key counts, introspection with the key included.
    assert _post(noisy, "{ __schema { queryType { name } } }").status_code == 429

    for _ in range(PER_WINDOW):  # meanwhile, another agent key is served
        assert quiet.data(VIEWER)["viewer"]["clientId"] == quiet.client_id

    time.sleep(max(0.0, refused_at + retry_after - time.monotonic()))
    again = _post(noisy)
    assert again.status_code == 200, again.text
    assert again.json()["data"]["viewer"]["clientId"] == noisy.client_id


def test_a_role_whose_limit_is_off_is_never_throttled(settings: Settings, limited_url: str) -> None:
    reviewer = new_caller(settings, limited_url, role=Role.REVIEWER)
    statuses = [_post(reviewer).status_code for _ in range(PER_WINDOW * 3)]
    assert statuses == [200] * (PER_WINDOW * 3)
