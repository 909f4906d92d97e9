"""`node(id:)`: the record's label found by one query over the labels' id indexes, then the
record read as the caller selected it (the same compiled read as the label's own root field)."""

from __future__ import annotations

from collections.abc import Sequence

import strawberry

from app.api.context import Info
from app.api.read.nodes import fetch_node
from app.api.read.selection import Field, selected
from app.api.types.base import NodeType, every_node_type
from app.domain.kernel.errors import NotFound
from app.domain.kernel.ids import check_id
from app.graph.fragments import label_of_query

NODE_TYPES = every_node_type()
LABEL_OF = label_of_query(NODE_TYPES)


async def read_record(
    info: Info, label: str, record_id: str, selections: Sequence[Field]
) -> NodeType | None:
    """The caller's record of `label` as selected (fields under fragments on other types are
    left out); None when there is none the caller may see."""
    node_type = NODE_TYPES.get(label)
    if node_type is None:  # a record GraphQL does not show (a client, say)
        return None
    mine = [s for s in selections if s.type_condition in (None, "Node", label)]
    try:
        return await fetch_node(info, node_type, record_id, mine)
    except NotFound:
        return None


async def find_node(info: Info, record_id: str) -> NodeType | None:
    params = {"id": check_id(record_id, field="id"), "client_id": info.context.caller().client_id}
    rows = await info.context.graph.read(LABEL_OF, params)
    labels = [label for label in rows[0]["labels"] if label in NODE_TYPES] if rows else []
    if not labels:
        return None
    return await read_record(info, labels[0], record_id, selected(info))


@strawberry.type
class NodeQueries:
    @strawberry.field(
        description="Any record the caller may see, by its id alone (null when there is none: "
        "another client's id reads exactly like an unknown one). Select its fields with "
        "`... on Plan { ... }`; `__typename` says which type it is."
    )
    async def node(self, info: Info, id: strawberry.ID) -> NodeType | None:
        return await find_node(info, str(id))
