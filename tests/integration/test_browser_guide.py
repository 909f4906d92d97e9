"""The analysts' door (issue 18) against the real local Neo4j, its own Neo4j Browser and a demo
client: the guide the API serves fills every slide's parameters with the client's real ids and
every slide's query runs with them (the lineage ones returning their records as graph nodes);
then, in a real headless Chromium, Browser connects, plays the guide with `:guide <url>`, loads
the style from the opening slide, runs the trace slide's parameters and query, and draws the
variant's lineage with the style's colours and captions; `:play <url>` shows the same slides in
a frame.

Screenshots: tests/artifacts/browser-guide-style.png, browser-guide-trace.png."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Iterator
from html import unescape
from typing import Any
from urllib.parse import urlsplit

import httpx
import neo4j
import pytest

from app.analyst.guide import ORDER
from app.analyst.style import MAKING, PLANNING
from app.demo.generator import generate_demo
from app.domain.keys import ensure_client
from app.runtime import connected
from app.settings import Settings
from tests.integration.browser import chromium, screenshot
from tests.integration.conftest import serve_in_thread

TIMEOUT_MS = 60_000
SLIDE = re.compile(r'<slide class="row-fluid" data-query="([a-z0-9_]+)">(.*?)</slide>', re.S)
BLOCK = r'<pre class="code runnable {}">(.*?)</pre>'
VARIANT = """
MATCH (p:Plan {client_id: $c})-[:HAS_NODE]->(:PlanNode)<-[:FROM_BLUEPRINT]-(a:Asset)
      -[:HAS_VARIANT]->(v:AssetVariant {id: $id})
RETURN v.platform + ' ' + v.format AS caption, p.name AS plan
"""


@pytest.fixture(scope="module")
def demo_client(settings: Settings) -> tuple[str, str]:
    """(name, client id) of a new demo client of three plans."""
    name = f"guide-{uuid.uuid4().hex[:10]}"

    async def generate() -> str:
        async with connected(settings) as graph:
            client_id = await ensure_client(graph, name=name)
            await generate_demo(graph, None, client_id=client_id, plans=3, progress=False)
            return client_id

    return name, asyncio.run(generate())


@pytest.fixture(scope="module")
def guide_api(settings: Settings, demo_client: tuple[str, str]) -> Iterator[str]:
    """The API as `up` serves it (the demo client fills the guide), addressed as `localhost`:
    the host Neo4j Browser fetches remote guides from by default."""
    for url in serve_in_thread(settings, guide_client=demo_client[0]):
        yield url.replace("127.0.0.1", "localhost")


@pytest.fixture(scope="module")
def slides(guide_api: str) -> dict[str, tuple[str, str]]:
    """Query file name -> (its `:params` command, its query), as the guide shows them."""
    response = httpx.get(f"{guide_api}/analyst/guide.html", timeout=30)
    assert response.status_code == 200
    found = {}
    for name, body in SLIDE.findall(response.text):
        (params,) = re.findall(BLOCK.format("params"), body, re.S)
        (query,) = re.findall(BLOCK.format("query"), body, re.S)
        found[name] = (unescape(params), unescape(query))
    return found


def test_every_slide_runs_with_the_demo_clients_ids(
    slides: dict[str, tuple[str, str]], demo_client: tuple[str, str], neo4j_session: Any
) -> None:
    assert list(slides)[: len(ORDER)] == [name for name in ORDER if name in slides]
    for name, (params_command, query) in slides.items():
        assert "<" not in params_command, f"{name}: a placeholder left: {params_command}"
        # What Browser does with `:params {...}`: evaluates the map on the server.
        params = neo4j_session.run(f"RETURN {params_command.removeprefix(':params ')} AS p")
        values = params.single()["p"]
        assert values["client_id"] == demo_client[1]
        rows = list(neo4j_session.run(query, values))
        assert rows, f"{name} found nothing for the demo client"
        if "graph" in rows[0].keys():
            graph = rows[0]["graph"]
            assert graph and all(isinstance(node, neo4j.graph.Node) for node in graph), name
            assert {node["client_id"] for node in graph} == {demo_client[1]}, name


def test_browser_plays_the_guide_and_draws_the_styled_trace(
    settings: Settings, guide_api: str, slides: dict[str, tuple[str, str]], neo4j_session: Any
) -> None:
    params_command = slides["trace"][0]
    variant_id = re.search(r"\bid: '([^']+)'", params_command).group(1)  # type: ignore[union-attr]
    client_id = re.search(r"client_id: '([^']+)'", params_command).group(1)  # type: ignore[union-attr]
    expected = neo4j_session.run(VARIANT, c=client_id, id=variant_id).single()
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1600, "height": 1100})
        page.set_default_timeout(TIMEOUT_MS)
        _connect(page, settings)
        _type_command(page, f":guide {guide_api}/analyst/guide.html")
        page.get_by_text("Lineage of the agents' memory").first.wait_for()
        _run_block(page, page.locator("pre.runnable").first)  # :style <url>
        page.get_by_text("node.AssetVariant {").wait_for()
        screenshot(page, "browser-guide-style")
        page.get_by_text("Next", exact=True).click()
        page.locator("h3", has_text="Trace").wait_for()
        _run_block(page, page.locator("pre.runnable.params"))
        page.get_by_text("Successfully set your parameters").wait_for()
        _run_block(page, page.locator("pre.runnable.query"))
        page.locator("svg g.node").first.wait_for()
        page.wait_for_timeout(1500)  # the layout settles
        screenshot(page, "browser-guide-trace")
        _type_command(page, f":play {guide_api}/analyst/guide.html")  # the same page, in a frame
        page.get_by_text(f"1 / {len(slides) + 1}").wait_for()
        drawn = page.locator("svg g.node").evaluate_all(
            """nodes => nodes.map(node => ({
                 caption: node.textContent.trim(),
                 fill: node.querySelector('circle.b-outline').getAttribute('fill')}))"""
        )
    fills = {node["caption"]: node["fill"].upper() for node in drawn}
    assert fills.get(expected["caption"]) == MAKING.color, drawn  # the variant: platform format
    plans = [node for node in drawn if expected["plan"].startswith(node["caption"].rstrip("…"))]
    assert plans and plans[0]["fill"].upper() == PLANNING.color, drawn  # the plan: its name
    assert any(node["caption"].startswith("approval ") for node in drawn), drawn
    assert any(node["caption"].startswith("snapshot · ") for node in drawn), drawn
    plan_nodes = [node for node in drawn if re.match(r"(objective|campaign) · ", node["caption"])]
    assert plan_nodes and plan_nodes[0]["fill"].upper() == PLANNING.color, drawn  # type · title
    assert len(drawn) >= 10, drawn  # plan, nodes, snapshot, versions, prompt, package, run...


def _connect(page: Any, settings: Settings) -> None:
    bolt = urlsplit(settings.neo4j_uri)
    page.goto(
        f"http://localhost:{settings.neo4j_http_port}/browser/"
        f"?dbms=bolt://{settings.neo4j_user}@{bolt.hostname}:{bolt.port}"
        "&preselectAuthMethod=USERNAME_PASSWORD"
    )
    page.get_by_text("Connect", exact=True).wait_for()
    page.select_option("select >> nth=1", label="Username / Password")
    page.locator("[data-testid=password]").fill(settings.neo4j_password.get_secret_value())
    page.get_by_text("Connect", exact=True).click()
    page.get_by_text("You are connected as user").wait_for()


def _type_command(page: Any, command: str) -> None:
    page.locator(".monaco-editor").first.click()
    page.keyboard.type(command)
    page.keyboard.press("Enter")


def _run_block(page: Any, block: Any) -> None:
    """Browser's click-to-run: the click puts the block in the editor, which then runs it."""
    block.click()
    page.locator(".monaco-editor").first.click()
    page.keyboard.press("Control+Enter")
