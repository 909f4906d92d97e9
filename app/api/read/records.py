"""Records a domain function returned (recalled, listed, searched memories; session entries),
as node types with the relationships the caller selected: those are read by one compiled query
for all the records at once, and only when the selection has any."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.api.context import Info
from app.api.types.base import GRAPHQL_NAMES, N
from app.graph.compiler import Compiler, by_ids_query
from app.graph.registry import entity
from app.graph.selection import Field


async def load_records(
    info: Info, node_type: type[N], records: list[dict[str, Any]], fields: Sequence[Field]
) -> list[N]:
    """The records as `node_type`; the values the domain function returned win over the
    graph's (content read back from object storage, say)."""
    label = node_type.__model__
    if not records or not _selects_related(label, fields):
        return [node_type.from_row(record) for record in records]
    compiler = Compiler(client_id=info.context.caller().client_id, names=GRAPHQL_NAMES)
    query = by_ids_query(compiler, label, fields)
    params = compiler.params | {"ids": [record["id"] for record in records]}
    rows = await info.context.graph.read_plain(query, params)
    related = {row["id"]: row["row"] for row in rows}
    return [
        node_type.from_row({k: v for k, v in related.get(r["id"], {}).items() if k not in r} | r)
        for r in records
    ]


async def load_record(
    info: Info, node_type: type[N], record: dict[str, Any], fields: Sequence[Field]
) -> N:
    return (await load_records(info, node_type, [record], fields))[0]


def _selects_related(label: str, fields: Sequence[Field]) -> bool:
    relationships = entity(label).relationships
    return any(GRAPHQL_NAMES.python_name(label, f.name) in relationships for f in fields)
