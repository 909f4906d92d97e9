"""Root query fields for every node type: `x(id)` and `xs(where, first, after, orderBy)`.

No `from __future__ import annotations`: the resolvers' annotations are built at run time.
"""

from typing import Any, Optional

import strawberry
from strawberry.tools import create_type

from app.api.context import Info
from app.api.read.nodes import get_node, list_nodes
from app.api.types import (  # noqa: F401 - registers the node types
    agent_memory,
    agents,
    assets,
    conversations,
    engagement,
    lessons,
    memory,
    plans,
    publishing,
    sessions,
)
from app.api.types.base import NODE_TYPES, ListOrder, RecordWhere
from app.api.types.connection import Connection

ROOTS = {
    "Plan": ("plan", "plans"),
    "PlanNode": ("plan_node", "plan_nodes"),
    "ConstraintsSnapshot": ("constraints_snapshot", "constraints_snapshots"),
    "Asset": ("asset", "assets"),
    "AssetVariant": ("asset_variant", "asset_variants"),
    "PromptArtifact": ("prompt_artifact", "prompt_artifacts"),
    "ApprovalRecord": ("approval_record", "approval_records"),
    "PublishPackage": ("publish_package", "publish_packages"),
    "PublishRun": ("publish_run", "publish_runs"),
    "EvidenceArtifact": ("evidence_artifact", "evidence_artifacts"),
    "ConversationThread": ("conversation_thread", "conversation_threads"),
    "ConversationEvent": ("conversation_event", "conversation_events"),
    "ThreadSummary": ("thread_summary", "thread_summaries"),
    "EngagementEvent": ("engagement_event", "engagement_events"),
    "PerformanceMetric": ("performance_metric", "performance_metrics"),
    "Agent": ("agent", "agents"),
    "AgentEpisode": ("agent_episode", "agent_episodes"),
    "Lesson": ("lesson", "lessons"),
    "ClientSnapshot": ("client_snapshot", "client_snapshots"),
    # Memory records themselves are read through recall/memories (access-logged); these are
    # the memory records' neighbours.
    "MemorySession": ("memory_session", "memory_sessions"),
    "MemorySubject": ("memory_subject", "memory_subjects"),
    "AgentCycle": ("agent_cycle", "agent_cycles"),
    "FeedbackEvent": ("feedback_event", "feedback_events"),
    "AgentPerformance": ("agent_performance", "agent_performances"),
}


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
    for label, (one, many) in ROOTS.items():
        get_field, list_field = _get_field(label), _list_field(label)
        get_field.python_name, list_field.python_name = one, many
        fields += [get_field, list_field]
    return fields


GraphQueries = create_type("GraphQueries", _fields())
