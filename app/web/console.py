"""The web console (issue 17): a page served by the service itself at /console, plain HTML, one
JS module and CSS from app/web/console/, no build step. It asks for an API key in the browser
and talks only GraphQL to /graphql (HTTP, and subscriptions over graphql-transport-ws), so the
page and its files need no key: like /healthz, they are outside RequireApiKey (app/web/auth.py),
which guards /graphql alone."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

PREFIX = "/console"
FILES = Path(__file__).resolve().parent / "console"
# The page and its files change with the code, not per request: revalidated on each load.
HEADERS = {"cache-control": "no-cache"}


async def console_page(request: Request) -> Response:
    return FileResponse(FILES / "index.html", media_type="text/html", headers=HEADERS)


def console_routes() -> list[BaseRoute]:
    """GET /console (the page) and /console/<file> (its script and style sheet)."""
    return [
        Route(PREFIX, console_page, methods=["GET"]),
        Mount(PREFIX, app=StaticFiles(directory=FILES, html=True)),
    ]
