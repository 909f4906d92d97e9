"""What a strawberry execution notes of its root reads, for app/api/read/plans.py.

Root resolvers that read one record by id note the Cypher they ran (`note_read`); the fast path
then notes the completer of the root field's value and the document around it (`note_root`),
or, for a @planned resolver (app/api/read/calls.py), the call itself (`note_call`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    OperationDefinitionNode,
    StringValueNode,
    ValueNode,
    VariableNode,
    Visitor,
    visit,
)

from app.api.read.calls import RootCall
from app.api.read.fast_path.values import Completer

Build = Callable[[dict[str, Any]], Any]


@dataclass(frozen=True)
class RootRead:
    response_key: str
    query: str
    params: dict[str, Any]  # the resolver's parameters, less the client and the id
    id_literal: str | None
    id_variable: str | None
    build: Build | None  # the query's row to the resolver's value; None: complete the row
    complete: Completer


@dataclass
class _Noted:
    query: str
    params: dict[str, Any]
    id_argument: str
    build: Build | None
    id_node: ValueNode | None = None
    complete: Completer | None = None


@dataclass
class ReadLearning:
    """What one strawberry execution noted of its root reads (held by the request context)."""

    operation: OperationDefinitionNode | None = None
    fragments: list[FragmentDefinitionNode] = field(default_factory=list)
    reads: dict[str, _Noted] = field(default_factory=dict)
    calls: dict[str, RootCall] = field(default_factory=dict)

    def note_read(
        self,
        response_key: str,
        query: str,
        params: dict[str, Any],
        *,
        id_argument: str = "id",
        build: Build | None = None,
    ) -> None:
        """A root resolver's read of one record by the id in `id_argument` (called once the
        record was found). `build` is how the resolver turned the query's first row into its
        value, a pure function of the row; without it, the value is the node of `row["row"]`,
        which the plan completes from the row itself."""
        kept = {k: v for k, v in params.items() if k not in ("client_id", "id")}
        self.reads[response_key] = _Noted(query, kept, id_argument, build)

    def completes_row(self, response_key: str) -> bool | None:
        """Whether the plan completes this root field's row (else the built value); None when
        the field is no noted read."""
        noted = self.reads.get(response_key)
        return None if noted is None else noted.build is None

    def note_root(
        self,
        response_key: str,
        complete: Completer | None,
        field_nodes: list[FieldNode],
        operation: OperationDefinitionNode,
        fragments: Iterable[FragmentDefinitionNode],
    ) -> None:
        """The fast path's completer of a root field's value, with the document around it."""
        noted = self.reads.get(response_key)
        if noted is None or len(field_nodes) != 1:
            return
        arguments = {a.name.value: a.value for a in field_nodes[0].arguments or ()}
        noted.id_node = arguments.get(noted.id_argument)
        noted.complete = complete
        self.operation = operation
        self.fragments = list(fragments)

    def note_call(
        self,
        call: RootCall,
        operation: OperationDefinitionNode,
        fragments: Iterable[FragmentDefinitionNode],
    ) -> None:
        """A root field whose @planned resolver the plan may call again, and its completer."""
        self.calls[call.response_key] = call
        self.operation = operation
        self.fragments = list(fragments)

    def argument_variables(self) -> list[VariableNode]:
        """The variable nodes that only give root fields their arguments: the ids of reads,
        and every argument of calls."""
        ids = [n.id_node for n in self.reads.values() if isinstance(n.id_node, VariableNode)]
        uses = _VariableUses()
        for node in (node for call in self.calls.values() for node in call.nodes):
            for argument in node.arguments or ():
                visit(argument, uses)
        return ids + uses.nodes


def root_calls(learning: ReadLearning, response_keys: list[str]) -> tuple[RootCall, ...] | None:
    """The plan's one root call (a document that selects a @planned field alone), or None."""
    if len(response_keys) != 1 or learning.reads or set(learning.calls) != set(response_keys):
        return None
    return (learning.calls[response_keys[0]],)


def root_reads(learning: ReadLearning, response_keys: list[str]) -> tuple[RootRead, ...] | None:
    """The plan's root reads, or None where some root field is no read the plan can repeat."""
    if not response_keys or learning.calls or set(learning.reads) != set(response_keys):
        return None
    roots = []
    for key in response_keys:
        noted = learning.reads[key]
        node = noted.id_node
        if noted.complete is None or not isinstance(node, VariableNode | StringValueNode):
            return None
        literal = node.value if isinstance(node, StringValueNode) else None
        variable = node.name.value if isinstance(node, VariableNode) else None
        roots.append(
            RootRead(key, noted.query, noted.params, literal, variable, noted.build, noted.complete)
        )
    return tuple(roots)


class _VariableUses(Visitor):
    def __init__(self) -> None:
        super().__init__()
        self.nodes: list[VariableNode] = []

    def enter_variable(self, node: VariableNode, *_args: Any) -> None:
        self.nodes.append(node)


def shaping_variables(
    operation: OperationDefinitionNode, learning: ReadLearning
) -> tuple[str, ...]:
    """Every variable of the operation but those used only as a root field's id or a call's
    argument: the ones whose values may change the compiled queries or the completers (limits,
    filters, @skip/@include)."""
    defined = [d.variable.name.value for d in operation.variable_definitions or ()]
    arguments = learning.argument_variables()
    id_nodes = {id(n) for n in arguments}
    uses = _VariableUses()
    visit(operation.selection_set, uses)
    for directive in operation.directives or ():
        visit(directive, uses)
    for fragment in learning.fragments:
        visit(fragment, uses)
    shaping = {node.name.value for node in uses.nodes if id(node) not in id_nodes}
    argument_only = {node.name.value for node in arguments} - shaping
    return tuple(sorted(name for name in defined if name not in argument_only))
