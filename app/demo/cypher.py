"""The demo generator's Cypher: one UNWIND statement per label and per relationship kind.

Labels, relationship types and datetime property names come from the graph model
(app/model/nodes.py); every relationship kind must be declared there, but for MemoryLinks, whose
types are the MemoryRelations and whose ends are any records (app/domain/lessons/links.py).
Values, including client_id, travel only as parameters. Datetimes travel as ISO-8601 text and
become Neo4j datetimes in the statement: the driver's own datetime packing costs ~0.2 ms a value
in Python, most of the generator's time before this.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from neomodel import DateTimeProperty

from app.demo.rows import NODE_LABELS, REL_KINDS, RelKind
from app.domain.lessons.links import LINK_TYPES, RECORD_LABELS
from app.graph.identifiers import cypher_label, cypher_rel_type
from app.model import MODEL

FIND_PLAN = """
MATCH (p:Plan {id: $id, client_id: $client_id})
RETURN p.id AS id
"""


def _declared() -> set[tuple[str, str, str]]:
    """(source label, relationship type, target label) for every relationship in the model."""
    found = set()
    for cls in MODEL:
        for rel in cls.defined_properties(properties=False, aliases=False).values():
            other, rel_type = rel._raw_class, rel.definition["relation_type"]
            outgoing = rel.definition["direction"].value == 1
            found.add(
                (cls.__name__, rel_type, other) if outgoing else (other, rel_type, cls.__name__)
            )
    return found


PROPERTY = re.compile(r"^[a-z][a-z0-9_]{0,62}$")


def _datetime_properties(label: str) -> list[str]:
    (cls,) = [cls for cls in MODEL if cls.__name__ == label]
    names = [
        name
        for name, prop in cls.defined_properties(rels=False, aliases=False).items()
        if isinstance(prop, DateTimeProperty)
    ]
    if not all(PROPERTY.match(name) for name in names):
        raise ValueError(f"unsafe property name among {names}")
    return names


def _create_nodes(label: str) -> str:
    times = "".join(f", n.{name} = datetime(row.{name})" for name in _datetime_properties(label))
    return f"""
UNWIND $rows AS row
CREATE (n:{cypher_label(label)})
SET n = row, n.client_id = $client_id{times}
RETURN count(n) AS created
"""


def _check(kind: RelKind) -> None:
    if kind.link:
        if kind.rel_type not in LINK_TYPES:
            raise ValueError(f"{kind.rel_type} is no MemoryLink type; use one of {LINK_TYPES}")
        if not {kind.source, kind.target} <= set(RECORD_LABELS):
            raise ValueError(f"a MemoryLink joins records: {kind.source}, {kind.target}")
    elif (kind.source, kind.rel_type, kind.target) not in _declared():
        raise ValueError(f"the model declares no {kind.source}-[{kind.rel_type}]->{kind.target}")


def _create_relationships(kind: RelKind) -> str:
    _check(kind)
    props = "SET r = row.props, r.created_at = datetime(row.props.created_at)"
    return f"""
UNWIND $rows AS row
MATCH (a:{cypher_label(kind.source)} {{id: row.from_id, client_id: $client_id}})
MATCH (b:{cypher_label(kind.target)} {{id: row.to_id, client_id: $client_id}})
CREATE (a)-[r:{cypher_rel_type(kind.rel_type)}]->(b)
{props if kind.props else ""}
RETURN count(r) AS created
"""


CREATE_NODES: dict[str, str] = {label: _create_nodes(label) for label in NODE_LABELS}
CREATE_RELATIONSHIPS: dict[str, str] = {
    name: _create_relationships(kind) for name, kind in REL_KINDS.items()
}


def wire_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows as parameters: datetimes (also inside an edge's props) as ISO-8601 text."""
    return [{key: _wire(value) for key, value in row.items()} for row in rows]


def _wire(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {key: _wire(item) for key, item in value.items()}
    return value
