"""Root read fields: each is answered by one compiled Cypher query over its selection."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from strawberry.types.nodes import SelectedField, Selection

from app.api.context import Info
from app.api.types.base import GRAPHQL_NAMES, NODE_TYPES
from app.api.types.connection import connection
from app.domain.kernel.errors import NotFound
from app.domain.kernel.ids import check_id
from app.domain.kernel.pagination import check_page_size, keyset_params
from app.graph.compiler import Compiler, as_int, connection_query, flatten, get_query


def _root(info: Info) -> SelectedField:
    return flatten(info.selected_fields)[0]


async def fetch_node(
    info: Info, label: str, record_id: str, selections: Sequence[Selection], *, learn: bool = False
) -> Any:
    principal = info.context.caller()
    compiler = Compiler(client_id=principal.client_id, names=GRAPHQL_NAMES)
    query = get_query(compiler, label, selections)
    rows = await info.context.graph.read_plain(
        query, compiler.params | {"id": check_id(record_id, field="id")}
    )
    if not rows:
        raise NotFound(f"no {label} with id {record_id}", id=record_id)
    learning = info.context.learning
    if learn and learning is not None and info.path.prev is None:
        learning.note_read(str(info.path.key), query, compiler.params)
    return NODE_TYPES[label].from_row(rows[0]["row"])


async def get_node(info: Info, label: str, record_id: str) -> Any:
    return await fetch_node(info, label, record_id, _root(info).selections, learn=True)


async def load_written(info: Info, label: str, record: dict[str, Any]) -> Any:
    """A mutation's result: built from the written record, or re-read in one query when the
    caller selected relationships of it."""
    return await _from_written(info, label, record, _root(info).selections)


async def load_written_at(info: Info, label: str, record: dict[str, Any], path_field: str) -> Any:
    """`load_written` for a record a mutation returns under one field of its payload (e.g.
    `createAssetVariant { variant { ... } deduplicated }`): the selections under that field."""
    selections = [
        selection
        for field in flatten(_root(info).selections)
        if field.name == path_field
        for selection in field.selections
    ]
    return await _from_written(info, label, record, selections)


async def _from_written(
    info: Info, label: str, record: dict[str, Any], selections: Sequence[Selection]
) -> Any:
    model = NODE_TYPES[label].__model__
    wants_related = any(
        GRAPHQL_NAMES.python_name(model, field.name) not in (None, *record.keys())
        and field.name != "__typename"
        for field in flatten(selections)
    )
    if not wants_related:
        return NODE_TYPES[label].from_row(record)
    return await fetch_node(info, label, str(record["id"]), selections)


def _node_selections(root: SelectedField) -> list[Selection]:
    """The node selection of a connection: under `edges { node }` and under `nodes`."""
    merged: list[Selection] = []
    for field in flatten(root.selections):
        if field.name == "nodes":
            merged.extend(field.selections)
        elif field.name == "edges":
            for inner in flatten(field.selections):
                if inner.name == "node":
                    merged.extend(inner.selections)
    return merged


async def list_nodes(info: Info, label: str) -> Any:
    root = _root(info)
    arguments = root.arguments or {}
    first = check_page_size(as_int(arguments.get("first", 20)))
    principal = info.context.caller()
    compiler = Compiler(client_id=principal.client_id, names=GRAPHQL_NAMES)
    query = connection_query(
        compiler,
        label,
        _node_selections(root),
        where=arguments.get("where"),
        ascending=arguments.get("orderBy") == "CREATED_AT_ASC",
    )
    params = compiler.params | keyset_params(arguments.get("after")) | {"limit": first + 1}
    rows = await info.context.graph.read_plain(query, params)
    found: list[dict[str, Any]] = rows[0]["rows"]
    nodes = [NODE_TYPES[label].from_row(row) for row in found]
    return connection(nodes, found, total=int(rows[0]["total"]), first=first)
