"""What the episode tree and replay queries return; records are the read types of app/api/types
built from the rows of one Cypher query (their relationship fields are not loaded here)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON

from app.api.context import Info
from app.api.types.agents import Agent, AgentEpisode
from app.api.types.assets import Asset
from app.api.types.base import NODE_TYPES
from app.api.types.constraints import ConstraintVersion
from app.api.types.conversations import ConversationThread
from app.api.types.engagement import EngagementEvent
from app.api.types.lessons import Lesson
from app.api.types.plans import ConstraintsSnapshot, Plan, PlanNode
from app.domain import episodes

EpisodeRecord = Annotated[
    PlanNode | Asset | ConversationThread | EngagementEvent | Lesson,
    strawberry.union("EpisodeRecord", description="A record an episode read or wrote."),
]


@strawberry.type(description="A record an episode READ or WROTE, with its current properties.")
class EpisodeLink:
    label: str
    role: str
    linked_at: datetime | None
    changed_since: bool = strawberry.field(
        description="The record was updated after the episode started."
    )
    changed_after_link: bool = strawberry.field(
        description="The record was updated after this link was recorded."
    )
    record: EpisodeRecord


@strawberry.type(description="A constraints snapshot reached from the episode's records.")
class ReplaySnapshot:
    snapshot: ConstraintsSnapshot
    plan: Plan
    via_record_ids: list[strawberry.ID]
    in_force_at_start: bool = strawberry.field(
        description="Frozen before the episode started (false: the plan was approved later)."
    )
    constraints: list[ConstraintVersion] = strawberry.field(
        description="The constraint document versions the snapshot froze, by kind."
    )


@strawberry.type(description="Where the closed episode's JSON-lines log is, and its checksum.")
class ToolCallLog:
    episode_id: strawberry.ID
    uri: str | None
    sha256: str | None
    tool_calls: int

    @strawberry.field(description="A presigned GET URL for the log (null until it is closed).")
    async def url(self, info: Info, expires_s: int = 900) -> str | None:
        if self.uri is None:
            return None
        return await episodes.log_url(
            info.context.services.artifacts,
            principal=info.context.caller(),
            uri=self.uri,
            expires_s=expires_s,
        )


@strawberry.type(description="Everything needed to replay an episode, from one Cypher query.")
class EpisodeReplay:
    episode: AgentEpisode
    agent: Agent | None
    parent: AgentEpisode | None
    children: list[AgentEpisode]
    input_refs: JSON | None
    retrieval_refs: JSON | None
    reads: list[EpisodeLink]
    writes: list[EpisodeLink]
    snapshots: list[ReplaySnapshot]
    log: ToolCallLog


@strawberry.type
class EpisodeTreeEntry:
    depth: int
    has_children: bool
    episode: AgentEpisode


@strawberry.type(description="An episode, its path up to the root, and the subtree below it.")
class EpisodeTree:
    episode: AgentEpisode
    path_to_root: list[AgentEpisode] = strawberry.field(
        description="Ancestors, parent first and the root episode last."
    )
    root: AgentEpisode
    descendants: list[EpisodeTreeEntry] = strawberry.field(
        description="Breadth first, down to maxDepth levels."
    )
    truncated: bool = strawberry.field(description="Episodes deeper than maxDepth exist.")


def episode_link(row: dict[str, Any]) -> EpisodeLink:
    return EpisodeLink(
        label=row["label"],
        role=row["role"],
        linked_at=row["linked_at"],
        changed_since=bool(row["changed_since"]),
        changed_after_link=bool(row["changed_after_link"]),
        record=NODE_TYPES[row["label"]].from_row(row["record"]),  # type: ignore[arg-type]
    )


def replay_snapshot(row: dict[str, Any]) -> ReplaySnapshot:
    return ReplaySnapshot(
        snapshot=ConstraintsSnapshot.from_row(row["snapshot"]),
        plan=Plan.from_row(row["plan"]),
        via_record_ids=[strawberry.ID(record_id) for record_id in row["via"]],
        in_force_at_start=bool(row["in_force_at_start"]),
        constraints=[ConstraintVersion.from_row(version) for version in row["constraints"]],
    )
