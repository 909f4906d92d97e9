"""What a search hit's record shows: the caller's selection under `hits { record }`, compiled
per record type (the same compiler as the root reads, relationship fields included) into the
one map search returns of each record it keeps, instead of every property: a hybrid search of
25 LoCoMo turns selecting one field of each, server time p50 16.9 -> 15.7 ms (issue 19). A
selection of own fields only is cheap enough for every candidate: the signal queries return it
and nothing is read after the ranking (Shown.per_candidate); one with relationship fields is
read for the records kept only."""

from __future__ import annotations

from collections.abc import Sequence

from app.api.context import Info
from app.api.read.selection import Field, selected, under
from app.api.types.base import GRAPHQL_NAMES
from app.graph.compiler import Compiler
from app.model.labels import SEARCHABLES
from app.retrieval.search_queries import Shown

# What search reads of a returned record whatever the selection: its type names its hit's.
RANKED_BY = frozenset({"record_type"})
# Fields under `record` that hold for every record type: GraphQL asks a union only for its
# type name, and the Node interface for the id.
EVERY_TYPE = (None, "Node", "SearchRecord")


class _SearchNames:
    """The API's names for the compiler, each type also needing what search reads."""

    def python_name(self, label: str, graphql_name: str) -> str | None:
        return GRAPHQL_NAMES.python_name(label, graphql_name)

    def needs(self, label: str) -> frozenset[str]:
        return GRAPHQL_NAMES.needs(label) | RANKED_BY


def shown_records(info: Info) -> Shown:
    """The projection of the records selected under `hits { record }` of the search result
    being resolved (`search`, `similar`)."""
    fields = under(selected(info), "hits", "record")
    return compiled(fields, client_id=info.context.caller().client_id)


def compiled(fields: Sequence[Field], *, client_id: str) -> Shown:
    """One CASE over the record types, each branch the compiler's projection of the fields
    selected on that type (through a fragment on it, on Node or on none)."""
    compiler = Compiler(client_id=client_id, names=_SearchNames())
    branches = [
        f"WHEN {compiler.param(label)} THEN {compiler.projection(label, 'n', _of(fields, label))}"
        for label in SEARCHABLES
    ]
    # A record of a type the model no longer searches: as a hit of no selection would be.
    other = "ELSE n {.id, .record_type}"
    projection = f"CASE n.record_type {' '.join(branches)} {other} END"
    return Shown(projection, compiler.params, per_candidate=not compiler.follows_relationships)


def _of(fields: Sequence[Field], label: str) -> list[Field]:
    return [field for field in fields if field.type_condition in (*EVERY_TYPE, label)]
