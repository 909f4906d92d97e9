"""The change feed's GraphQL types: a change (with its record, loaded when selected), a page."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import TYPE_CHECKING, Any

import strawberry

from app.api.context import Info
from app.api.nodes.queries import read_record
from app.api.read.selection import selected
from app.api.types.base import NodeType
from app.domain.changes import ChangePage as DomainPage
from app.graph.identifiers import Label
from app.graph.values import parse_datetime
from app.model.enums import ChangeAction
from app.model.labels import search_type_name

strawberry.enum(ChangeAction, description="What a write did to a record.")

if TYPE_CHECKING:
    RecordType = Enum  # built at run time from the model, which a type checker cannot follow
else:
    RecordType = strawberry.enum(
        Enum("RecordType", {search_type_name(label.value): label.value for label in Label}),
        description="The record types of the graph model (its labels).",
    )


@strawberry.type(
    description="One change of the feed: what a write did to which record, who did it."
)
class Change:
    cursor: str = strawberry.field(description="Ask `after:` this to get what came after it.")
    at: datetime = strawberry.field(description="When it committed (the database's clock).")
    operation: str = strawberry.field(
        description="The mutation (e.g. appendEvent) or background job (e.g. memory-sweeper)."
    )
    action: ChangeAction
    record_type: RecordType
    record_id: strawberry.ID
    parent_id: strawberry.ID | None = strawberry.field(
        description="The record it belongs to, where it has one (a thread for its events)."
    )
    key_id: strawberry.ID | None = strawberry.field(description="The API key that wrote it.")
    agent: str | None = strawberry.field(description="The agent of that key, if any.")

    @strawberry.field(
        description="The record as it is now (null once deleted or no longer visible)."
    )
    async def record(self, info: Info) -> NodeType | None:
        return await read_record(info, self.record_type.value, str(self.record_id), selected(info))

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Change:
        at = row["at"]
        return cls(
            cursor=str(row["position"]),
            at=parse_datetime(at) if isinstance(at, str) else at,
            operation=row["operation"],
            action=ChangeAction(row["action"]),
            record_type=RecordType(row["record_type"]),
            record_id=strawberry.ID(row["record_id"]),
            parent_id=row.get("parent_id"),
            key_id=row.get("key_id"),
            agent=row.get("agent"),
        )


@strawberry.type(description="A page of the change feed, oldest first.")
class ChangePage:
    changes: list[Change]
    end_cursor: str = strawberry.field(description="Ask `after:` this for the next page.")
    has_more: bool = strawberry.field(description="More changes follow right away.")

    @classmethod
    def of(cls, page: DomainPage) -> ChangePage:
        return cls(
            changes=[Change.from_row(row) for row in page.changes],
            end_cursor=page.end_cursor,
            has_more=page.has_more,
        )
