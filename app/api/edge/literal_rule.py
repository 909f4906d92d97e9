"""Literal input values refused at the edge name where they are, as variables' values do.

graphql-core's ValuesOfCorrectTypeRule reports the error a scalar raises for a literal as it
is: "text holds a control character ..." with no argument and no location. The rule here is the
same rule whose reports of those errors (InputRefused, app/api/edge/text_input.py) say the argument,
or the variable whose default value it is, and the path inside it, at the value's location:
"Argument 'input' has invalid value at .content.provider: text holds ...".
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from graphql import (
    ArgumentNode,
    ASTValidationRule,
    GraphQLError,
    GraphQLInputType,
    ValueNode,
    ValuesOfCorrectTypeRule,
    VariableDefinitionNode,
)
from graphql.language.visitor import SKIP, VisitorAction
from graphql.pyutils import print_path_list
from graphql.utilities import validate_input_literal
from strawberry.extensions import AddValidationRules

from app.api.edge.text_input import InputRefused

RuleTuple = tuple[type[ASTValidationRule], ...]


class ValuesNamingWhere(ValuesOfCorrectTypeRule):
    where = "Value"  # every literal is inside an argument or a variable's default value

    def enter_argument(self, node: ArgumentNode, *_args: Any) -> None:
        self.where = f"Argument '{node.name.value}'"

    def enter_variable_definition(self, node: VariableDefinitionNode, *_args: Any) -> None:
        self.where = f"Default value of variable '${node.variable.name.value}'"

    def is_valid_value_node(
        self, node: ValueNode, input_type: GraphQLInputType | None
    ) -> VisitorAction:
        """As graphql-core's, but for the reports of refused input."""
        if input_type:

            def on_error(error: GraphQLError, path: list[str | int]) -> None:
                if isinstance(error, InputRefused):
                    where = f"{self.where} has invalid value{print_path_list(path)}"
                    error = InputRefused(f"{where}: {error.message}", node)
                self.report_error(error)

            validate_input_literal(
                node, input_type, on_error, None, None, self.context.hide_suggestions
            )
        return SKIP


class EdgeValidationRules(AddValidationRules):
    """strawberry's AddValidationRules that also puts ValuesNamingWhere in the place of
    graphql-core's rule for literal values. The rules an operation starts with are the schema's
    same tuple every time, so the tuple made from it is made once and kept (a few µs of every
    request otherwise)."""

    # (id(given), id(added)) -> (given, added, made); the objects kept so the ids stay theirs
    _made: dict[tuple[int, int], tuple[RuleTuple, object, RuleTuple]] = {}

    def on_operation(self) -> Iterator[None]:
        given, added = self.execution_context.validation_rules, self.validation_rules
        key = (id(given), id(added))
        kept = self._made.get(key)
        if kept is None or kept[0] is not given or kept[1] is not added:
            named = (ValuesNamingWhere if r is ValuesOfCorrectTypeRule else r for r in given)
            kept = (given, added, (*named, *added))
            if len(self._made) >= 64:  # new tuples every time: keep no history
                self._made.clear()
            self._made[key] = kept
        self.execution_context.validation_rules = kept[2]
        yield
