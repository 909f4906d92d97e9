"""`/readyz`: answered within a second whatever state Neo4j and S3 are in, and without an admin
key only what any prober may see (status and checks). The checks themselves are in
app/web/readiness_checks.py; `/metrics` is app/web/metrics.py."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from app.api.edge.api_key import presented_key
from app.api.edge.asgi import headers_of
from app.domain.keys import authenticate
from app.model.enums import Role
from app.runtime import Services
from app.web.readiness_checks import CHECK_TIMEOUT_S, close_probes, shared_checks

__all__ = ["close_probes", "readyz"]


async def _is_admin(request: Request, services: Services) -> bool:
    secret = presented_key(headers_of(request.scope))
    if not secret:
        return False
    try:
        async with asyncio.timeout(CHECK_TIMEOUT_S):
            principal = await authenticate(services.graph, secret=secret)
    except Exception:  # noqa: BLE001 - an outage or a slow lookup: no details, nothing else
        return False
    return principal is not None and principal.role is Role.ADMIN


def _details(request: Request, services: Services) -> dict[str, Any]:
    details: dict[str, Any] = {
        "embedder": "loaded" if services.embedder.loaded else "lazy (not loaded yet)",
        "embedding": services.indexer.status.details(),
    }
    background = getattr(request.app.state, "memory_background", None)
    if background is not None:
        details |= background.details()
    return details


async def readyz(request: Request) -> Response:
    services: Services = request.app.state.services
    checks = await shared_checks(request.app.state, services).result()
    ready = all(value == "ok" for value in checks.values())
    body: dict[str, Any] = {"status": "ready" if ready else "not ready", "checks": checks}
    if checks["neo4j"] == "ok" and await _is_admin(request, services):
        body["details"] = _details(request, services)
    return JSONResponse(body, status_code=200 if ready else 503)
