"""GraphiQL as a new user meets it after `up` (issue: front-end apps' door), in a real headless
Chromium against the real services: the page sends the demo key, so the schema loads (the docs
explorer lists the root types) and the example `Viewer` operation answers with the demo client,
not `UNAUTHENTICATED`. The page `serve` gives (no key) still opens, asking for one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from app.api.edge.graphiql_assets import provision_graphiql_assets
from app.settings import Settings
from tests.integration.browser import chromium, screenshot
from tests.integration.conftest import Caller, serve_in_thread

TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def assets(settings: Settings) -> None:
    """GraphiQL's scripts served locally (npm once into the cache): this machine has no CDN."""
    if provision_graphiql_assets(settings) is None:
        pytest.fail("GraphiQL's assets could not be fetched from the npm registry")


@pytest.fixture
def up_url(settings: Settings, assets: None, alice: Caller) -> Iterator[str]:
    yield from serve_in_thread(settings, graphiql_key=alice.key)


def test_graphiql_opens_with_the_key_the_schema_and_examples(up_url: str, alice: Caller) -> None:
    with chromium() as browser:
        _key_page(browser.new_page(), up_url, alice)


def _key_page(page: Any, up_url: str, alice: Caller) -> None:
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"{up_url}/graphql")
    editor = page.locator(".graphiql-query-editor")
    editor.get_by_text("query RecentPlans").wait_for()
    page.get_by_text("viewer { clientId role agentName }").click()
    page.keyboard.press("Control+Enter")
    result = page.locator(".result-window")
    result.get_by_text(alice.client_id).wait_for()
    assert "UNAUTHENTICATED" not in result.inner_text()
    page.locator('button[aria-label="Show Documentation Explorer"]').click()
    page.get_by_text("Root Types").wait_for()  # introspection answered: the schema is loaded
    page.locator(".graphiql-editor-tool").get_by_text(f"Bearer {alice.key}").wait_for()
    screenshot(page, "graphiql-up")
    page.close()


@pytest.fixture
def serve_url(settings: Settings, assets: None) -> Iterator[str]:
    yield from serve_in_thread(settings)


def test_the_served_page_without_a_key_asks_for_one(serve_url: str) -> None:
    with chromium() as browser:
        _plain_page(browser.new_page(), serve_url)


def _plain_page(page: Any, serve_url: str) -> None:
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"{serve_url}/graphql")
    page.locator(".graphiql-query-editor").get_by_text("Welcome to GraphiQL").wait_for()
    assert "Bearer am_" not in page.content()
    page.close()
