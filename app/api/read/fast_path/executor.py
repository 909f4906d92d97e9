"""The graphql-core executor with the fast path: values whose whole selection the fast path
supports are completed in one pass instead of field by field.

graphql-core still parses, validates, coerces variables, collects fields and runs every
resolver that is not a plain read (root fields, resolvers with logic); only the completion of
what they returned is taken over. Where a value does not complete cleanly (a null in a non-null
field, a value a scalar rejects), graphql-core completes it again from the start, so that the
response, errors included, is the one it would have produced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphql import GraphQLOutputType, GraphQLResolveInfo
from graphql.execution.collect_fields import FieldDetailsList
from graphql.pyutils import Path
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from app.api.read.calls import RootCall, argument_converter, is_planned
from app.api.read.fast_path.plan import Planner
from app.api.read.fast_path.shapes import BACKREF


@dataclass
class FastPathStats:
    """Process-wide counts, for tests and for operators wondering whether it applies."""

    completed: int = 0
    fallbacks: int = 0


STATS = FastPathStats()


class FastExecutor(StrawberryGraphQLCoreExecutionContext):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        manager = self.middleware_manager
        # Middleware (extensions with a `resolve` hook) must see every field: no fast path.
        wrapped = manager is not None and bool(manager.middlewares)
        self._planner = None if wrapped else Planner(self)

    def complete_value(
        self,
        return_type: GraphQLOutputType,
        field_details_list: FieldDetailsList,
        info: GraphQLResolveInfo,
        path: Path,
        result: Any,
        position_context: Any,
    ) -> Any:
        planner = self._planner
        if planner is not None:
            try:
                complete = planner.entry(return_type, field_details_list)
            except Exception:  # noqa: BLE001 - no plan: graphql-core collects (and reports) itself
                complete = None
            if complete is not None:
                try:
                    completed = complete(result)
                except Exception:  # noqa: BLE001 - graphql-core redoes it and reports the error
                    STATS.fallbacks += 1
                else:
                    STATS.completed += 1
                    if path.prev is None:
                        self._note_root(return_type, field_details_list, path)
                    return completed
        return super().complete_value(
            return_type, field_details_list, info, path, result, position_context
        )

    def _has_extensions(self, field_details_list: FieldDetailsList) -> bool:
        root_type = self.schema.get_root_type(self.operation.operation)
        field = root_type.fields.get(field_details_list[0].node.name.value) if root_type else None
        definition = (field.extensions or {}).get(BACKREF) if field is not None else None
        return definition is None or bool(definition.extensions)

    def _note_root(
        self, return_type: GraphQLOutputType, field_details_list: FieldDetailsList, path: Path
    ) -> None:
        """Gives a read plan being learned the completer of this root field's row."""
        learning = getattr(self.context_value, "learning", None)
        # A plan answers later callers without running the root field's extensions (permission
        # classes among them): a field that has any never becomes part of one.
        if learning is None or self._planner is None or self._has_extensions(field_details_list):
            return
        key = str(path.key)
        from_row = learning.completes_row(key)
        if from_row is None:
            self._note_call(learning, return_type, field_details_list, key)
            return
        planner = self._planner
        learning.note_root(
            key,
            (planner.rows_entry if from_row else planner.entry)(return_type, field_details_list),
            [details.node for details in field_details_list],
            self.operation,
            self.fragment_definitions.values(),
        )

    def _note_call(
        self,
        learning: Any,
        return_type: GraphQLOutputType,
        field_details_list: FieldDetailsList,
        key: str,
    ) -> None:
        """A @planned root field: the plan may call its resolver (app/api/read/calls.py)."""
        root_type = self.schema.get_root_type(self.operation.operation)
        if root_type is None or self._planner is None:
            return
        field = root_type.fields.get(field_details_list[0].node.name.value)
        if field is None or not is_planned(field):
            return
        complete = self._planner.entry(return_type, field_details_list)
        if complete is None:
            return
        nodes = tuple(details.node for details in field_details_list)
        convert = argument_converter(field, self.schema)
        call = RootCall(key, field, root_type, nodes, complete, self.schema, type(self), convert)
        learning.note_call(call, self.operation, self.fragment_definitions.values())
