"""Rows for the demo generator's batched writes: node properties per label, relationship
endpoints per kind, and the objects to upload first. Pure Python (over the model's
declarations), like every module of app/demo except generator.py.

Ids come from a random.Random seeded by (client, seed, plan index), and content from one seeded
by (seed, plan index) only, so two clients generated with the same seed get the same titles,
texts and checksums under different ids, and every plan is the same whichever batch builds it.
"""

from __future__ import annotations

import random
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from app.model import MODEL


@dataclass(frozen=True)
class RelKind:
    """One relationship kind the generator writes: (source label)-[type]->(target label).

    `props`: its rows carry `props`, the relationship's properties (a created_at among them):
    plan edges (edge_id, plan_id, client_id), an episode's READ and WROTE (role) and MemoryLinks.
    `link`: a MemoryLink (app/domain/lessons/links.py), a relationship between any two records
    whose type is a MemoryRelation upper-cased; the model declares none of them.
    """

    source: str
    rel_type: str
    target: str
    props: bool = False
    link: bool = False

    def __post_init__(self) -> None:
        if self.link and not self.props:
            raise ValueError("a MemoryLink carries its properties")


REL_KINDS: dict[str, RelKind] = {
    "HAS_NODE": RelKind("Plan", "HAS_NODE", "PlanNode"),
    "CONSTRAINED_BY": RelKind("Plan", "CONSTRAINED_BY", "ConstraintsSnapshot"),
    "DEPENDS_ON": RelKind("PlanNode", "DEPENDS_ON", "PlanNode", props=True),
    "PRODUCES": RelKind("PlanNode", "PRODUCES", "PlanNode", props=True),
    "REQUIRES_APPROVAL": RelKind("PlanNode", "REQUIRES_APPROVAL", "PlanNode", props=True),
    "SCHEDULED_FOR": RelKind("PlanNode", "SCHEDULED_FOR", "PlanNode", props=True),
    "FROM_BLUEPRINT": RelKind("Asset", "FROM_BLUEPRINT", "PlanNode"),
    "HAS_VARIANT": RelKind("Asset", "HAS_VARIANT", "AssetVariant"),
    "GENERATED_ASSET": RelKind("PromptArtifact", "GENERATED", "Asset"),
    "GENERATED_VARIANT": RelKind("PromptArtifact", "GENERATED", "AssetVariant"),
    "APPROVES": RelKind("ApprovalRecord", "APPROVES", "AssetVariant"),
    "FOR_PLAN": RelKind("PublishPackage", "FOR_PLAN", "Plan"),
    "INCLUDES": RelKind("PublishPackage", "INCLUDES", "AssetVariant"),
    "HAS_RUN": RelKind("PublishPackage", "HAS_RUN", "PublishRun"),
    "HAS_EVIDENCE": RelKind("PublishRun", "HAS_EVIDENCE", "EvidenceArtifact"),
    "HAS_VERSION": RelKind("ConstraintDocument", "HAS_VERSION", "ConstraintVersion"),
    "CURRENT_VERSION": RelKind("ConstraintDocument", "CURRENT_VERSION", "ConstraintVersion"),
    "HAS_FACT": RelKind("ConstraintDocument", "HAS_FACT", "KnowledgeFact"),
    "INTRODUCED": RelKind("ConstraintVersion", "INTRODUCED", "KnowledgeFact"),
    "FREEZES": RelKind("ConstraintsSnapshot", "FREEZES", "ConstraintVersion"),
    # Agent memory (memory.py, lessons.py): episodes, what they read and wrote, engagement,
    # metrics, lessons and the MemoryLinks between them.
    "RAN": RelKind("Agent", "RAN", "AgentEpisode"),
    "SPAWNED": RelKind("AgentEpisode", "SPAWNED", "AgentEpisode"),
    "READ_PLAN_NODE": RelKind("AgentEpisode", "READ", "PlanNode", props=True),
    "READ_ASSET": RelKind("AgentEpisode", "READ", "Asset", props=True),
    "READ_LESSON": RelKind("AgentEpisode", "READ", "Lesson", props=True),
    "WROTE_PLAN_NODE": RelKind("AgentEpisode", "WROTE", "PlanNode", props=True),
    "WROTE_ASSET": RelKind("AgentEpisode", "WROTE", "Asset", props=True),
    "WROTE_EVENT": RelKind("AgentEpisode", "WROTE", "EngagementEvent", props=True),
    "WROTE_LESSON": RelKind("AgentEpisode", "WROTE", "Lesson", props=True),
    "CONCERNS_VARIANT": RelKind("EngagementEvent", "CONCERNS", "AssetVariant"),
    "CONCERNS_RUN": RelKind("EngagementEvent", "CONCERNS", "PublishRun"),
    "MEASURES": RelKind("PerformanceMetric", "MEASURES", "AssetVariant"),
    "EVIDENCED_BY_METRIC": RelKind("Lesson", "EVIDENCED_BY", "PerformanceMetric"),
    "EVIDENCED_BY_EPISODE": RelKind("Lesson", "EVIDENCED_BY", "AgentEpisode"),
    "SUPERSEDES": RelKind("Lesson", "SUPERSEDES", "Lesson"),
    "CAUSED": RelKind("AgentEpisode", "CAUSED", "EngagementEvent", props=True, link=True),
    "DERIVED_FROM": RelKind("Lesson", "DERIVED_FROM", "AgentEpisode", props=True, link=True),
    "SUPPORTS": RelKind("Lesson", "SUPPORTS", "Lesson", props=True, link=True),
    "CONTRADICTS": RelKind("Lesson", "CONTRADICTS", "Lesson", props=True, link=True),
    "VALIDATES": RelKind("Asset", "VALIDATES", "Lesson", props=True, link=True),
}
# The labels the generator writes: those its relationship kinds connect, in the model's order
# (every node of a batch is written before its relationships).
NODE_LABELS = tuple(
    cls.__name__
    for cls in MODEL
    if any(cls.__name__ in (kind.source, kind.target) for kind in REL_KINDS.values())
)


@dataclass(frozen=True)
class Upload:
    """An object to store before the batch whose nodes point at it."""

    parts: tuple[str, ...]
    data: bytes
    content_type: str
    uri: str
    sha256: str


@dataclass
class Rows:
    """What one batch writes: node properties per label, endpoints per relationship kind."""

    nodes: defaultdict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    rels: defaultdict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    uploads: list[Upload] = field(default_factory=list)

    def node_count(self) -> int:
        return sum(len(rows) for rows in self.nodes.values())

    def rel_count(self) -> int:
        return sum(len(rows) for rows in self.rels.values())


def seeded_uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def plan_rngs(*, client_id: str, seed: int, index: int) -> tuple[random.Random, random.Random]:
    """(ids, content) generators of one plan."""
    return random.Random(f"{client_id}:{seed}:{index}"), random.Random(f"{seed}:{index}")


def memory_rngs(*, client_id: str, seed: int, index: int) -> tuple[random.Random, random.Random]:
    """(ids, content) generators of one plan's agent memory (memory.py), apart from the plan's
    own: adding the memory changed no id or text of the content."""
    return (
        random.Random(f"{client_id}:{seed}:{index}:memory"),
        random.Random(f"{seed}:{index}:memory"),
    )


def first_plan_id(*, client_id: str, seed: int) -> str:
    """The id the generator gives plan 0 of this client and seed (a re-run would collide)."""
    ids, _ = plan_rngs(client_id=client_id, seed=seed, index=0)
    return seeded_uuid(ids)
