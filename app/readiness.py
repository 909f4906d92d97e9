"""`/readyz` and `/metrics`: answered within a second whatever state Neo4j and S3 are in, and
without an admin key only what any prober may see (status and checks; process-wide totals)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from minio import Minio
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from app.api.context import Services
from app.artifacts.store import make_client
from app.auth import presented_key
from app.domain.apikeys import authenticate
from app.model.enums import Role
from app.settings import Settings

# Each check, and the admin key lookup that unlocks the details, gets this long: together they
# stay under the second a load balancer's probe allows.
CHECK_TIMEOUT_S = 0.4


def probe_client(settings: Settings) -> Minio:
    """A client whose calls give up within the check's time, so that a probe of a stalled S3
    does not hold a worker thread for the whole dependency timeout."""
    return make_client(settings, timeout_s=CHECK_TIMEOUT_S)


async def _within(check: Awaitable[str]) -> str:
    try:
        async with asyncio.timeout(CHECK_TIMEOUT_S):
            return await check
    except TimeoutError:
        return f"error: no answer within {CHECK_TIMEOUT_S} s"
    except Exception as error:  # noqa: BLE001 - readiness reports any failure
        return f"error: {type(error).__name__}"


async def _neo4j(services: Services) -> str:
    await services.graph.read("RETURN 1 AS ok")
    return "ok"


async def _s3(client: Minio, bucket: str) -> str:
    exists = await asyncio.to_thread(client.bucket_exists, bucket)
    return "ok" if exists else f"error: bucket {bucket} missing"


async def _is_admin(request: Request, services: Services) -> bool:
    secret = presented_key(request)
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
    state = request.app.state
    if getattr(state, "s3_probe", None) is None:
        state.s3_probe = probe_client(services.settings)
    neo4j, s3 = await asyncio.gather(
        _within(_neo4j(services)), _within(_s3(state.s3_probe, services.artifacts.bucket))
    )
    checks = {"neo4j": neo4j, "s3": s3}
    ready = all(value == "ok" for value in checks.values())
    body: dict[str, Any] = {"status": "ready" if ready else "not ready", "checks": checks}
    if neo4j == "ok" and await _is_admin(request, services):
        body["details"] = _details(request, services)
    return JSONResponse(body, status_code=200 if ready else 503)


def _access_log_metrics(request: Request) -> list[str]:
    background = getattr(request.app.state, "memory_background", None)
    writer = background.writer if background is not None else None
    if writer is None:
        return []
    counters = writer.totals()
    lines = []
    for name, value in counters.items():
        kind = "gauge" if name == "pending" else "counter"
        metric = f"agentmem_access_log_{name}" + ("" if kind == "gauge" else "_total")
        lines += [f"# TYPE {metric} {kind}", f"{metric} {value}"]
    return lines


async def metrics(request: Request) -> Response:
    """Process-wide totals only (no client ids), so the endpoint needs no key."""
    services: Services = request.app.state.services
    text = services.indexer.status.metrics() + "".join(
        line + "\n" for line in _access_log_metrics(request)
    )
    return PlainTextResponse(text, media_type="text/plain; version=0.0.4")
