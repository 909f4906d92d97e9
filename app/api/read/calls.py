"""Root fields whose resolver a read plan may call itself (app/api/read/plans.py): remember,
recallMemory and the like, whose answer is not one compiled query but a domain call.

A resolver decorated `@planned` becomes such a root once a document that selects it alone was
executed through strawberry without errors. A later request with the same document has its
variables coerced by graphql-core, the root field's arguments taken from them, and the same
resolver called with them as strawberry calls it (its arguments converted by a function built
once, app/api/read/arguments.py), with no GraphQL execution around it; the fast path's
completer completes the value.

A plan never calls a resolver twice. Where the call raised, or its value does not complete
exactly, the request is executed by strawberry after all, and the decorator hands that
execution the outcome the plan already had instead of running the resolver again (`replaying`):
so the answer, errors included, is the one strawberry gives, and the write or the access-log
entry the call made is made once.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from inspect import isawaitable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    GraphQLError,
    GraphQLField,
    GraphQLObjectType,
    GraphQLSchema,
    OperationDefinitionNode,
)
from graphql.execution.values import get_argument_values
from graphql.pyutils import Path
from strawberry.schema.schema_converter import GraphQLCoreConverter
from strawberry.types import Info as StrawberryInfo

from app.api.read.arguments import Arguments, converter, resolver_call

if TYPE_CHECKING:  # the fast path's executor notes calls: imported at run time it would loop
    from app.api.read.fast_path.values import Completer

BACKREF = GraphQLCoreConverter.DEFINITION_BACKREF  # a graphql-core field's strawberry field
P = ParamSpec("P")
T = TypeVar("T")
PLANNED = "__planned__"


@dataclass(frozen=True)
class Outcome:
    """What a root resolver called by a plan gave: its value, or the error it raised."""

    value: Any = None
    error: BaseException | None = None

    def give(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.value


_replaying: ContextVar[dict[str, Outcome] | None] = ContextVar("replayed_roots", default=None)


@contextmanager
def replaying(outcomes: dict[str, Outcome] | None) -> Iterator[None]:
    """While strawberry executes a request a plan began: the root fields' outcomes by response
    key, which their @planned resolvers give instead of running (None: nothing to give)."""
    token = _replaying.set(outcomes)
    try:
        yield
    finally:
        _replaying.reset(token)


def planned(resolver: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """Marks a root resolver that a plan may call (module doc). Its only effects are what it
    does itself (graph, object storage, access log), from its arguments and the request's
    context alone, and it runs no field extensions."""

    @functools.wraps(resolver)  # strawberry reads the arguments through __wrapped__
    async def resolve(*args: P.args, **kwargs: P.kwargs) -> T:
        outcomes = _replaying.get()
        info = kwargs.get("info")
        if outcomes is not None and isinstance(info, StrawberryInfo) and info.path.prev is None:
            outcome = outcomes.get(str(info.path.key))
            if outcome is not None:
                return cast(T, outcome.give())
        return await resolver(*args, **kwargs)

    setattr(resolve, PLANNED, True)
    return resolve


def is_planned(field: GraphQLField) -> bool:
    """Whether the executable field's resolver is strawberry's wrapper of a @planned one."""
    definition = (field.extensions or {}).get(BACKREF)
    resolver = getattr(definition, "base_resolver", None)
    wrapped = getattr(resolver, "wrapped_func", None)
    return bool(getattr(wrapped, PLANNED, False)) and not getattr(definition, "extensions", ())


def argument_converter(field: GraphQLField, schema: GraphQLSchema) -> Arguments | None:
    """The built conversion of a @planned field's arguments, where strawberry's resolver
    wrapper would do nothing else (no exception handlers, the default Info class)."""
    strawberry_schema = getattr(schema, "_strawberry_schema", None)
    if strawberry_schema is None or strawberry_schema.schema_converter.exception_handlers:
        return None
    if strawberry_schema.config.info_class is not StrawberryInfo:
        return None
    return converter(field.extensions[BACKREF], strawberry_schema)


@dataclass(frozen=True)
class Replay:
    """A plan's call whose outcome strawberry must answer (module doc)."""

    outcomes: dict[str, Outcome]


@dataclass(frozen=True)
class RootCall:
    """A plan's root field answered by calling its resolver; what the execution that learned
    it knew of the field (the schema, and graphql-core's executor class, strawberry's)."""

    response_key: str
    field: GraphQLField
    parent_type: GraphQLObjectType
    nodes: tuple[FieldNode, ...]
    complete: Completer
    schema: GraphQLSchema
    executor_class: Any
    # The resolver's own arguments from the coerced ones (app/api/read/arguments.py); None:
    # through strawberry's resolver wrapper.
    convert: Arguments | None

    async def answer(
        self, document: DocumentNode, context: Any, variables: dict[str, Any]
    ) -> dict[str, Any] | Replay | None:
        """The response's `data`; a Replay; or None where the variables or the arguments do
        not coerce (nothing ran: strawberry answers with the errors)."""
        built = self.executor_class.build(
            self.schema, document, context_value=context, raw_variable_values=variables
        )
        if isinstance(built, list):
            return None
        try:
            arguments = get_argument_values(self.field, self.nodes[0], built.variable_values)
        except GraphQLError:
            return None
        outcome = await self._call(built, arguments)
        if outcome.error is None:
            try:
                return {self.response_key: self.complete(outcome.value)}
            except Exception:  # noqa: BLE001 - graphql-core completes (and reports) it instead
                pass
        return Replay({self.response_key: outcome})

    async def _call(self, executor: Any, arguments: dict[str, Any]) -> Outcome:
        path = Path(None, self.response_key, self.parent_type.name)
        info = executor.build_resolve_info(self.field, list(self.nodes), self.parent_type, path)
        try:
            if self.convert is None:
                resolve = self.field.resolve
                assert resolve is not None  # a @planned field has strawberry's resolver
                value = resolve(executor.root_value, info, **arguments)
            else:
                definition = self.field.extensions[BACKREF]
                given = StrawberryInfo(_raw_info=info, _field=definition)
                value = resolver_call(definition, given, self.convert(arguments))
            if isawaitable(value):
                value = await value
        except Exception as error:  # noqa: BLE001 - strawberry answers it (module doc)
            return Outcome(error=error)
        return Outcome(value=value)


def document_of(
    operation: OperationDefinitionNode, fragments: Iterable[FragmentDefinitionNode]
) -> DocumentNode:
    """The operation with its fragments: what graphql-core's executor is built from."""
    return DocumentNode(definitions=(operation, *fragments))
