"""Root query fields for every node type the model gives them (`roots`, app/model/facts.py):
`x(id)` and `xs(where, first, after, orderBy)`.

No `from __future__ import annotations`: the resolvers' annotations are built at run time.
"""

from typing import Any, Optional

import strawberry
from strawberry.tools import create_type

from app.api.context import Info
from app.api.read.nodes import get_node, list_nodes
from app.api.types.base import ListOrder, every_node_type
from app.api.types.connection import Connection
from app.api.types.related import RecordWhere
from app.model.labels import ROOT_FIELDS

# Every node type the model names, registered before the root fields refer to them.
NODE_TYPES = every_node_type()


def _get_field(label: str) -> Any:
    node = NODE_TYPES[label]

    async def resolve(info: Info, id: strawberry.ID) -> node:  # type: ignore[valid-type]
        return await get_node(info, label, id)

    return strawberry.field(
        resolver=resolve,
        name=None,
        description=f"One {label} of the caller's client by id (NOT_FOUND otherwise); nested "
        "selections are answered by the same single Cypher query.",
    )


def _list_field(label: str) -> Any:
    node = NODE_TYPES[label]

    async def resolve(
        info: Info,
        where: Optional[RecordWhere] = None,  # noqa: UP045 - evaluated at run time
        first: int = 20,
        after: Optional[str] = None,  # noqa: UP045
        order_by: Optional[ListOrder] = None,  # noqa: UP045
    ) -> Connection[node]:  # type: ignore[valid-type]
        return await list_nodes(info, label)

    return strawberry.field(
        resolver=resolve,
        description=f"The caller's {label} records, filtered and cursor-paginated (newest first "
        "unless orderBy says otherwise), in one Cypher query.",
    )


def _fields() -> list[Any]:
    fields = []
    for label, (one, many) in ROOT_FIELDS.items():
        get_field, list_field = _get_field(label), _list_field(label)
        get_field.python_name, list_field.python_name = one, many
        fields += [get_field, list_field]
    return fields


GraphQueries = create_type("GraphQueries", _fields())
