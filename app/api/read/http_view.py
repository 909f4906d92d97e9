"""The GraphQL HTTP view: strawberry's, with a direct path for the common request.

Nearly every request is a POST of one JSON operation. For those the view reads the body,
executes and answers itself, skipping the request adapters, sub-response and content negotiation
that strawberry's generic view builds per request (0.3 ms of server time per request on our
2-core machine). Anything else (GET, GraphiQL, batches, multipart uploads, streaming `Accept`
types, a body that is not one JSON operation, an operation the method may not run) is
strawberry's view, with the body replayed, so the answers to those do not change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cross_web import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError, MissingQueryError
from strawberry.http import GraphQLHTTPResponse
from strawberry.schema.exceptions import CannotGetOperationTypeError, InvalidOperationTypeError
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.types import ExecutionResult
from strawberry.types.graphql import OperationType
from strawberry.types.unset import UNSET

from app.api.context import RequestContext
from app.api.edge.asgi import headers_of
from app.api.edge.graphiql_assets import localised
from app.api.edge.graphiql_page import with_demo_key
from app.api.edge.outcome import INVALID, executed, note_code, note_operation, operation_label
from app.api.edge.persisted_queries import PersistedQueries, PersistedQueryError, persisted_hash
from app.api.edge.request_body import (
    BadBody,
    ParsedBody,
    is_json,
    parse_json,
    parsed_body,
    request_json,
)
from app.api.edge.ws_auth import ConnectionAuth
from app.api.errors import answer_extensions, http_status, send_answer, shaped, unavailable_body
from app.api.read.calls import Replay, replaying
from app.api.read.learning import ReadLearning
from app.api.read.plans import STATS, ReadPlans
from app.api.read.view_request import (
    REPLAYED,
    read_body,
    refusal,
    replay,
    replayed,
    single_operation,
)
from app.api.schema import build_schema
from app.artifacts.read_budget import open_read_budget
from app.domain.kernel.errors import Unavailable
from app.graph.executor import start_counting
from app.runtime import Services

POST_OPERATIONS = OperationType.from_http("POST")


@dataclass(frozen=True)
class Ran:
    """An executed operation: its result, and whether a read plan answered it."""

    result: ExecutionResult
    planned: bool


class GraphQLApp(GraphQL[RequestContext, None]):
    def __init__(
        self,
        services: Services,
        *,
        local_ide_assets: bool,
        demo_key: str | None = None,
        connections: ConnectionAuth | None = None,
    ) -> None:
        schema = build_schema(services.settings)
        super().__init__(
            schema,
            graphql_ide="graphiql",
            subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
            allowed_origins=services.settings.cors_allowed_origins,
        )
        self.connections = connections  # who may open a subscription connection
        self.persisted = PersistedQueries(services.graph)
        self.graphql_schema = schema._schema  # the root fields that name an operation
        self.services = services
        self.local_ide_assets = local_ide_assets
        self.demo_key = demo_key  # sent by the IDE page (`up` on this machine only)
        # Plans complete rows with the fast path's completers: only where it is on.
        self.plans = ReadPlans() if services.settings.graphql_fast_path else None

    @property
    def graphql_ide_html(self) -> str:
        html = super().graphql_ide_html
        html = localised(html) if self.local_ide_assets else html
        return html if self.demo_key is None else with_demo_key(html, self.demo_key)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await super().__call__(scope, receive, send)
            return
        body = await self._with_document(scope, await read_body(receive), send)
        if body is None:
            return
        operation = single_operation(scope, body)
        if operation is not None and await self._answer(scope, operation, send):
            return
        try:
            value = request_json(scope, body)
        except BadBody as error:
            note_operation(INVALID)
            await refusal(400, error.message)(scope, receive, send)
            return
        replaying = REPLAYED.set(None if value is None else ParsedBody(body, value))
        try:
            await super().__call__(scope, replay(body), send)
        finally:
            REPLAYED.reset(replaying)

    async def _with_document(self, scope: Scope, body: bytes, send: Send) -> bytes | None:
        """The body with a persisted query's document in (app/api/edge/persisted_queries.py);
        None when the answer (an unknown hash) was sent instead."""
        principal = scope.get("state", {}).get("principal")
        if principal is None or b"persistedQuery" not in body or not is_json(scope):
            return body
        data = parsed_body(scope, body).value
        try:
            digest = persisted_hash(data)
            expanded = (
                None if digest is None else await self.persisted.expand(principal, data, digest)
            )
        except PersistedQueryError as error:
            note_operation(INVALID)
            await send_answer(send, error.body())
            return None
        return body if expanded is None else expanded

    async def run(self, request: Any, context: Any = UNSET, root_value: Any = UNSET) -> Any:
        """strawberry's view, whose HTTP errors (no query, a batch, an unsupported content type,
        a method it does not take) are answered in JSON with a code instead of plain text."""
        try:
            return await super().run(request, context, root_value)
        except HTTPException as error:
            note_operation(INVALID)
            return refusal(error.status_code, error.reason)

    async def execute_single(
        self,
        request: Any,
        request_adapter: Any,
        sub_response: Any,
        context: RequestContext,
        root_value: None,
        request_data: Any,
    ) -> ExecutionResult:
        """strawberry's, noting the operation it ran (each one of a batch)."""
        result = await super().execute_single(
            request, request_adapter, sub_response, context, root_value, request_data
        )
        note_operation(self._operation(request_data.query, request_data.operation_name, result))
        return result

    def _operation(self, query: str, name: str | None, result: ExecutionResult | None) -> str:
        """The operation's root fields; INVALID when it was refused before execution."""
        if result is not None and not executed(result.errors, result.data):
            return INVALID
        return operation_label(self.graphql_schema, query, name)

    def decode_json(self, data: str | bytes) -> object:
        """Every JSON strawberry's view parses (GET parameters, multipart fields) is bounded; a
        replayed body (a batch) was parsed already."""
        known = replayed(data)
        if known is not None and known.error is None:
            return known.value
        try:
            return parse_json(data)
        except BadBody as error:
            raise HTTPException(400, error.message) from None

    async def _answer(self, scope: Scope, operation: dict[str, Any], send: Send) -> bool:
        """Executes and sends the response; False (nothing executed or sent) where strawberry's
        view answers with an HTTP error instead (no query, no such operation, wrong method)."""
        request = Request(scope)
        query, name = operation["query"], operation.get("operationName")
        context = await self.get_context(request, None)
        variables = operation.get("variables") or {}
        try:
            ran = await self.run_operation(
                context, query, name, variables, operation.get("extensions")
            )
        except Unavailable as error:  # a plan's call: strawberry would only meet it again
            note_operation(self._operation(query, name, None))
            await send_answer(send, unavailable_body(error))
            return True
        except (CannotGetOperationTypeError, InvalidOperationTypeError, MissingQueryError):
            return False
        if ran.planned:
            note_operation(self._operation(query, name, None))
            await send_answer(send, {"data": ran.result.data, **answer_extensions(context)})
            return True
        note_operation(self._operation(query, name, ran.result))
        await send_answer(send, await self.process_result(request, ran.result))
        return True

    async def run_operation(
        self,
        context: RequestContext,
        query: str,
        name: str | None,
        variables: dict[str, Any],
        extensions: dict[str, Any] | None = None,
    ) -> Ran:
        """One operation as this view runs it, for any door (app/mcp runs its tools here): a
        read plan answers a document it learned, without GraphQL execution (Unavailable is
        raised); else strawberry executes it, and a clean run may become a plan."""
        plan = self.plans.find(query, name, variables) if self.plans is not None else None
        replay: Replay | None = None
        if plan is not None:
            data = await plan.answer(context, variables)
            if isinstance(data, dict):
                STATS.answered += 1
                return Ran(ExecutionResult(data=data, errors=None), planned=True)
            STATS.declined += 1
            replay = data
            if replay is None:  # what the plan read stands for nothing: strawberry starts afresh
                context.round_trips = start_counting()
                open_read_budget(self.services.settings.request_read_max_bytes)
        if replay is None and self.plans is not None and self.plans.may_learn(query, name):
            context.learning = ReadLearning()
        with replaying(replay.outcomes if replay is not None else None):
            result = await self.schema.execute(
                query,
                variable_values=variables,
                context_value=context,
                operation_name=name,
                allowed_operation_types=POST_OPERATIONS,
                operation_extensions=extensions,
            )
        if not isinstance(result, ExecutionResult):
            raise TypeError(f"a single operation gave {type(result).__name__}")
        if self.plans is not None and context.learning is not None and not result.errors:
            keys = list(result.data or {})
            self.plans.learn(query, name, variables, context.learning, keys)
        return Ran(result, planned=False)

    def create_response(
        self, response_data: GraphQLHTTPResponse | list[GraphQLHTTPResponse], sub_response: Response
    ) -> Response:
        response = super().create_response(response_data, sub_response)
        status, extra_headers = http_status(response_data)
        if status != 200:
            response.status_code = status
            response.headers.raw.extend(extra_headers)
        return response

    async def process_result(self, request: Any, result: ExecutionResult) -> GraphQLHTTPResponse:
        if result.errors:
            result.errors = [shaped(error) for error in result.errors]
        response = await super().process_result(request, result)
        note_code(response)
        return response

    async def on_ws_connect(self, context: RequestContext) -> None:
        """A subscription connection's key, from its init payload (app/api/edge/ws_auth.py)."""
        if self.connections is None:
            raise ConnectionRejectionError({"code": "UNAUTHENTICATED"})
        context.principal = await self.connections.principal(
            context.connection_params, headers_of(context.request.scope)
        )

    async def get_context(self, request: Any, response: Any) -> RequestContext:
        open_read_budget(self.services.settings.request_read_max_bytes)
        return RequestContext(
            request=request,
            services=self.services,
            principal=getattr(request.state, "principal", None),
            round_trips=start_counting(),
        )
