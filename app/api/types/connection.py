"""Relay-style connections with totalCount, shared by every listed node type."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Generic, TypeVar

import strawberry

from app.domain.kernel.pagination import Page, encode_cursor
from app.graph.values import parse_datetime

T = TypeVar("T")


@strawberry.type
class PageInfo:
    has_next_page: bool
    end_cursor: str | None


@strawberry.type
class Edge(Generic[T]):
    cursor: str
    node: T


@strawberry.type
class Connection(Generic[T]):
    edges: list[Edge[T]]
    page_info: PageInfo
    total_count: int

    @strawberry.field
    def nodes(self) -> list[T]:
        return [edge.node for edge in self.edges]


def _moment(value: datetime | str) -> datetime:
    return parse_datetime(value) if isinstance(value, str) else value


def connection(
    nodes: list[T], rows: list[dict[str, Any]], *, total: int, first: int
) -> Connection[T]:
    """A connection over `first` of `nodes` (one extra row tells whether a next page exists)."""
    page = nodes[:first]
    cursors = [encode_cursor(_moment(row["created_at"]), row["id"]) for row in rows[:first]]
    return Connection(
        edges=[Edge(cursor=c, node=n) for c, n in zip(cursors, page, strict=True)],
        page_info=PageInfo(
            has_next_page=len(nodes) > first, end_cursor=cursors[-1] if cursors else None
        ),
        total_count=total,
    )


def page_connection(page: Page[Any], nodes: list[T]) -> Connection[T]:
    """A connection of a domain page's nodes (as loaded for the caller's selection)."""
    return Connection(
        edges=[Edge(cursor=c, node=n) for c, n in zip(page.cursors, nodes, strict=True)],
        page_info=PageInfo(
            has_next_page=page.has_next_page,
            end_cursor=page.cursors[-1] if page.cursors else None,
        ),
        total_count=page.total_count,
    )
