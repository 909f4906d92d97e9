"""Read plans: a query whose every root field reads one record by id (a node, or the lineage of
one), answered again without GraphQL execution.

The first time such a document runs, it runs through strawberry as any other (parsing,
validation, limits, resolvers, errors). Meanwhile each root resolver notes the Cypher it ran and
the fast path notes a completer for the root field's value (app/api/read/learning.py). If that
execution had no errors, the document becomes a plan. A later request with the same document,
and the same values of every variable other than the root ids, runs the same queries with its
own ids and client and completes their rows directly: one Cypher query per root field, as
before, without the per-request work of GraphQL execution.

The plan answers only when it can answer exactly: an id that is not a UUID string, a record
that is missing (or another client's), or a value the completer leaves to graphql-core sends the
request back through strawberry, which gives the answer and the errors it always gives.

A document that selects one @planned root field alone (a query or a mutation: remember,
recallMemory) becomes a plan that calls that field's resolver (app/api/read/calls.py) instead
of repeating a query; what it cannot answer exactly, strawberry answers from the call's outcome.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphql import DocumentNode, OperationType

from app.api.read.calls import Replay, RootCall, document_of
from app.api.read.learning import (
    ReadLearning,
    RootRead,
    root_calls,
    root_reads,
    shaping_variables,
)
from app.domain.kernel.errors import AppError
from app.domain.kernel.ids import check_id

if TYPE_CHECKING:
    from app.api.context import RequestContext

MAX_DOCUMENTS = 1024
MAX_PLANS = 2048


@dataclass
class ReadPlanStats:
    """Process-wide counts, for tests and for operators wondering whether plans apply."""

    learned: int = 0
    answered: int = 0
    declined: int = 0  # a plan was found but strawberry answered instead


STATS = ReadPlanStats()


Document = tuple[str, str | None]  # the query text and the operation name


@dataclass(frozen=True)
class ReadPlan:
    roots: tuple[RootRead, ...]
    call: RootCall | None = None
    document: DocumentNode | None = None  # where a call needs graphql-core's executor

    async def answer(
        self, context: RequestContext, variables: dict[str, Any]
    ) -> dict[str, Any] | Replay | None:
        """The response's `data`; a call's outcome for strawberry to answer from (Replay); or
        None where strawberry must answer instead (nothing ran)."""
        principal = context.principal
        if principal is None:
            return None
        if self.call is not None and self.document is not None:
            return await self.call.answer(self.document, context, variables)
        data = {}
        for root in self.roots:
            record_id = (
                root.id_literal if root.id_variable is None else variables.get(root.id_variable)
            )
            if not isinstance(record_id, str):
                return None
            try:
                checked = check_id(record_id)
            except AppError:
                return None
            params = root.params | {"client_id": principal.client_id, "id": checked}
            rows = await context.graph.read_plain(root.query, params)
            if not rows:
                return None
            try:
                value = rows[0]["row"] if root.build is None else root.build(rows[0])
                data[root.response_key] = root.complete(value)
            except Exception:  # noqa: BLE001 - strawberry answers (and reports) it instead
                return None
        return data


class ReadPlans:
    """The plans learned by this process, and the documents that can never become one (so that
    their executions note nothing). Each is kept least recently used first and bounded: a plan
    holds its own completers, and variables that shape plans could otherwise grow them without
    end."""

    def __init__(self) -> None:
        self._shaping: OrderedDict[Document, tuple[str, ...]] = OrderedDict()
        self._plans: OrderedDict[tuple[str, str | None, str], ReadPlan] = OrderedDict()
        self._refused: OrderedDict[Document, None] = OrderedDict()

    def find(
        self, query: str, operation_name: str | None, variables: dict[str, Any]
    ) -> ReadPlan | None:
        shaping = self._shaping.get((query, operation_name))
        if shaping is None:
            return None
        key = (query, operation_name, _shape_key(shaping, variables))
        plan = self._plans.get(key)
        if plan is not None:
            self._plans.move_to_end(key)
        return plan

    def may_learn(self, query: str, operation_name: str | None) -> bool:
        return (query, operation_name) not in self._refused

    def learn(
        self,
        query: str,
        operation_name: str | None,
        variables: dict[str, Any],
        learning: ReadLearning,
        response_keys: list[str],
    ) -> None:
        """Makes a plan of an execution that had no errors, or remembers that the document
        cannot become one (not a query; a root field that is no read by id the plan can
        complete)."""
        document = (query, operation_name)
        plan = _plan_of(learning, response_keys)
        if plan is None or learning.operation is None:
            _put(self._refused, document, None, MAX_DOCUMENTS)
            return
        shaping = self._shaping.get(document)
        if shaping is None:
            shaping = shaping_variables(learning.operation, learning)
        _put(self._shaping, document, shaping, MAX_DOCUMENTS)
        _put(self._plans, (*document, _shape_key(shaping, variables)), plan, MAX_PLANS)
        STATS.learned += 1


def _plan_of(learning: ReadLearning, response_keys: list[str]) -> ReadPlan | None:
    """Reads of a query; or one call, of a query or a mutation; None: no plan."""
    operation = learning.operation
    if operation is None or operation.operation == OperationType.SUBSCRIPTION:
        return None
    calls = root_calls(learning, response_keys)
    if calls is not None:
        return ReadPlan((), calls[0], document_of(operation, learning.fragments))
    roots = root_reads(learning, response_keys)
    if roots is None or operation.operation != OperationType.QUERY:
        return None
    return ReadPlan(roots)


def _put(entries: OrderedDict[Any, Any], key: Any, value: Any, limit: int) -> None:
    entries[key] = value
    entries.move_to_end(key)
    if len(entries) > limit:
        entries.popitem(last=False)


def _shape_key(shaping: tuple[str, ...], variables: dict[str, Any]) -> str:
    present = {name: variables[name] for name in shaping if name in variables}
    return json.dumps(present, sort_keys=True, separators=(",", ":"))
