"""What each request carries: the shared services and the authenticated principal."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request
from starlette.websockets import WebSocket
from strawberry.types import Info as StrawberryInfo

from app.api.read.learning import ReadLearning
from app.domain.kernel.errors import Unauthenticated
from app.domain.kernel.principal import Principal
from app.graph.executor import GraphExecutor, RoundTrips
from app.runtime import Services

ROUND_TRIPS_HEADER = "x-agentmem-roundtrips"


@dataclass
class RequestContext:
    request: Request | WebSocket
    services: Services
    principal: Principal | None
    round_trips: RoundTrips
    # Set where this execution may become a read plan (app/api/read/plans.py).
    learning: ReadLearning | None = None
    # A subscription connection's init payload (graphql-transport-ws sets it).
    connection_params: object = None

    @property
    def graph(self) -> GraphExecutor:
        return self.services.graph

    def caller(self) -> Principal:
        if self.principal is None:
            raise Unauthenticated("send an API key in the Authorization: Bearer header")
        return self.principal

    @property
    def wants_round_trips(self) -> bool:
        return self.request.headers.get(ROUND_TRIPS_HEADER, "").lower() in {"1", "true", "yes"}


Info = StrawberryInfo[RequestContext, None]
