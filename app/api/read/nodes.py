"""Root read fields: each is answered by one compiled Cypher query over its selection."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.api.context import Info
from app.api.read.selection import Field, connection_nodes, root_field, selected, under
from app.api.types.base import GRAPHQL_NAMES, NODE_TYPES, N
from app.api.types.connection import connection
from app.domain.kernel.errors import NotFound
from app.domain.kernel.ids import check_id
from app.domain.kernel.pagination import check_page_size, keyset_params
from app.graph.compiler import Compiler, as_int, connection_query, get_query


async def fetch_node(
    info: Info,
    node_type: type[N],
    record_id: str,
    selections: Sequence[Field],
    *,
    learn: bool = False,
) -> N:
    label = node_type.__model__
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
    return node_type.from_row(rows[0]["row"])


async def get_node(info: Info, label: str, record_id: str) -> Any:
    return await fetch_node(info, NODE_TYPES[label], record_id, selected(info), learn=True)


async def load_written(info: Info, node_type: type[N], record: dict[str, Any]) -> N:
    """A mutation's result: built from the written record, or re-read in one query when the
    caller selected relationships of it."""
    return await _from_written(info, node_type, record, selected(info))


async def load_written_at(
    info: Info, node_type: type[N], record: dict[str, Any], path_field: str
) -> N:
    """`load_written` for a record a mutation returns under one field of its payload (e.g.
    `createAssetVariant { variant { ... } deduplicated }`): the selections under that field."""
    return await _from_written(info, node_type, record, under(selected(info), path_field))


async def _from_written(
    info: Info, node_type: type[N], record: dict[str, Any], selections: Sequence[Field]
) -> N:
    model = node_type.__model__
    wants_related = any(
        GRAPHQL_NAMES.python_name(model, field.name) not in (None, *record.keys())
        and field.name != "__typename"
        for field in selections
    )
    if not wants_related:
        return node_type.from_row(record)
    return await fetch_node(info, node_type, str(record["id"]), selections)


async def list_nodes(info: Info, label: str) -> Any:
    root = root_field(info)
    arguments = root.arguments
    first = check_page_size(as_int(arguments.get("first", 20)))
    principal = info.context.caller()
    compiler = Compiler(client_id=principal.client_id, names=GRAPHQL_NAMES)
    query = connection_query(
        compiler,
        label,
        connection_nodes(root.children),
        where=arguments.get("where"),
        ascending=arguments.get("orderBy") == "CREATED_AT_ASC",
    )
    params = compiler.params | keyset_params(arguments.get("after")) | {"limit": first + 1}
    rows = await info.context.graph.read_plain(query, params)
    found: list[dict[str, Any]] = rows[0]["rows"]
    nodes = [NODE_TYPES[label].from_row(row) for row in found]
    return connection(nodes, found, total=int(rows[0]["total"]), first=first)
