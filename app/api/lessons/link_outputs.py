"""Read types of MemoryLinks: a generic reference to any record, links, neighbourhoods."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import strawberry
from strawberry.scalars import JSON

from app.domain.lessons import LinkDirection
from app.model.enums import MemoryRelation

METADATA = "The link's own JSON object (seed 004 relationship metadata)."


@strawberry.type(description="Any record of the client, by id, label and a human title.")
class RecordRef:
    id: strawberry.ID
    label: str
    title: str | None
    created_at: datetime | None


@strawberry.type(description="A MemoryLink (seed 000, 8.3) between two records of the client.")
class MemoryLink:
    link_id: strawberry.ID
    relation: MemoryRelation
    author: str | None
    created_at: datetime | None
    note: str | None
    metadata: JSON | None = strawberry.field(description=METADATA)
    from_record: RecordRef = strawberry.field(name="from")
    to_record: RecordRef = strawberry.field(name="to")


@strawberry.type(description="A link of one record, seen from that record.")
class RecordLink:
    link_id: strawberry.ID
    relation: MemoryRelation
    direction: LinkDirection
    author: str | None
    created_at: datetime | None
    note: str | None
    metadata: JSON | None = strawberry.field(description=METADATA)
    other: RecordRef


@strawberry.type
class NeighbourRecord:
    record: RecordRef
    distance: int = strawberry.field(description="The fewest links from the start record.")


@strawberry.type(description="A link among the records of a neighbourhood.")
class NeighbourLink:
    link_id: strawberry.ID
    relation: MemoryRelation
    from_id: strawberry.ID
    to_id: strawberry.ID
    author: str | None
    created_at: datetime | None
    note: str | None
    metadata: JSON | None = strawberry.field(description=METADATA)


@strawberry.type(description="The records within k MemoryLinks of a record, nearest first.")
class Neighbourhood:
    start: RecordRef
    records: list[NeighbourRecord]
    links: list[NeighbourLink]


def record_ref(row: dict[str, Any]) -> RecordRef:
    return RecordRef(
        id=strawberry.ID(row["id"]),
        label=row["label"],
        title=None if row.get("title") is None else str(row["title"]),
        created_at=row.get("created_at"),
    )


def memory_link(link: dict[str, Any]) -> MemoryLink:
    return MemoryLink(
        link_id=strawberry.ID(link["link_id"]),
        relation=link["relation"],
        author=link.get("author"),
        created_at=link.get("created_at"),
        note=link.get("note"),
        metadata=link.get("metadata"),
        from_record=record_ref(link["from"]),
        to_record=record_ref(link["to"]),
    )


def record_link(link: dict[str, Any]) -> RecordLink:
    return RecordLink(
        link_id=strawberry.ID(link["link_id"]),
        relation=MemoryRelation(str(link["relation"]).lower()),
        direction=LinkDirection(link["direction"]),
        author=link.get("author"),
        created_at=link.get("created_at"),
        note=link.get("note"),
        metadata=link.get("metadata"),
        other=record_ref(link["other"]),
    )


def neighbourhood(row: dict[str, Any]) -> Neighbourhood:
    return Neighbourhood(
        start=record_ref(row["start"]),
        records=[
            NeighbourRecord(record=record_ref(found["record"]), distance=int(found["distance"]))
            for found in row["records"]
        ],
        links=[
            NeighbourLink(
                link_id=strawberry.ID(link["link_id"]),
                relation=MemoryRelation(str(link["relation"]).lower()),
                from_id=strawberry.ID(link["from_id"]),
                to_id=strawberry.ID(link["to_id"]),
                author=link.get("author"),
                created_at=link.get("created_at"),
                note=link.get("note"),
                metadata=None if link.get("metadata") is None else json.loads(link["metadata"]),
            )
            for link in row["links"]
        ],
    )
