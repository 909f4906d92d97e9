"""The analysts' door into Neo4j Browser (issue 18): /analyst/guide.html (the guide of named
queries) and /analyst/style.grass (the style), fetched by Browser's page from another origin.

They carry no key: they show query text, and ids only of the one client the process was started
to show (`up` names its demo client; `serve` names none, so its guide shows placeholders)."""

from __future__ import annotations

from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from app.analyst.guide import render_guide
from app.analyst.query_files import load_query_files
from app.analyst.samples import client_samples
from app.analyst.style import grass

PREFIX = "/analyst"
GUIDE_PATH = f"{PREFIX}/guide.html"
STYLE_PATH = f"{PREFIX}/style.grass"
HEADERS = {"cache-control": "no-cache"}


async def guide(request: Request) -> Response:
    client: str | None = request.app.state.guide_client
    samples = {}
    if client is not None:
        samples = await client_samples(request.app.state.services.graph, client)
    style_url = str(request.base_url).rstrip("/") + STYLE_PATH
    page = render_guide(load_query_files(), samples=samples, style_url=style_url, client=client)
    return HTMLResponse(page, headers=HEADERS)


async def style(request: Request) -> Response:
    return PlainTextResponse(grass(), headers=HEADERS)


def analyst_routes() -> list[BaseRoute]:
    return [Route(GUIDE_PATH, guide, methods=["GET"]), Route(STYLE_PATH, style, methods=["GET"])]


class OpenToBrowser:
    """Outermost: /analyst/ answers any origin, preflight included (Browser sends no-cache
    headers, so its fetch is preflighted), whatever origins the API itself allows."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.open = CORSMiddleware(
            app, allow_origins=["*"], allow_methods=["GET"], allow_headers=["*"]
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(PREFIX + "/"):
            await self.open(scope, receive, send)
        else:
            await self.app(scope, receive, send)
