"""Memory records as node types: the repository's records, plus the relationships the caller
selected (versions, artifacts, ...) read by one compiled query for all of them at once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from strawberry.types.nodes import SelectedField, Selection

from app.api.context import Info
from app.api.types.base import GRAPHQL_NAMES, NODE_TYPES
from app.graph.compiler import Compiler, flatten
from app.graph.identifiers import cypher_label
from app.graph.registry import entity

RELATED_BY_IDS = "MATCH (n0:{label} {{client_id: $client_id}}) WHERE n0.id IN $ids"


def root(info: Info) -> SelectedField:
    return flatten(info.selected_fields)[0]


def under(selections: Sequence[Selection], *path: str) -> list[Selection]:
    """The selections under a path of field names (e.g. "edges", "node")."""
    current = list(selections)
    for name in path:
        current = [s for f in flatten(current) if f.name == name for s in f.selections]
    return current


def connection_nodes(info: Info) -> list[Selection]:
    selections = root(info).selections
    return [*under(selections, "nodes"), *under(selections, "edges", "node")]


def selects(selections: Sequence[Selection], name: str) -> bool:
    """Whether `name` is selected anywhere in the tree (hydrating content costs a read)."""
    for field in flatten(selections):
        if field.name == name or selects(field.selections, name):
            return True
    return False


def _related_fields(label: str, selections: Sequence[Selection]) -> bool:
    relationships = entity(label).relationships
    return any(
        GRAPHQL_NAMES.python_name(label, f.name) in relationships for f in flatten(selections)
    )


async def as_nodes(
    info: Info, label: str, records: list[dict[str, Any]], selections: Sequence[Selection]
) -> list[Any]:
    node_type = NODE_TYPES[label]
    if not records or not _related_fields(label, selections):
        return [node_type.from_row(record) for record in records]
    compiler = Compiler(client_id=info.context.caller().client_id, names=GRAPHQL_NAMES)
    projection = compiler.projection(label, "n0", selections)
    query = (
        RELATED_BY_IDS.format(label=cypher_label(label))
        + f" RETURN n0.id AS id, {projection} AS row"
    )
    params = compiler.params | {"ids": [record["id"] for record in records]}
    rows = await info.context.graph.read_plain(query, params)
    related = {row["id"]: row["row"] for row in rows}
    return [
        node_type.from_row({k: v for k, v in related.get(r["id"], {}).items() if k not in r} | r)
        for r in records
    ]


async def as_node(info: Info, label: str, record: dict[str, Any]) -> Any:
    return (await as_nodes(info, label, [record], root(info).selections))[0]
