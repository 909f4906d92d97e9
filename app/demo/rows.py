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
    """One relationship kind the generator writes: (source label)-[type]->(target label)."""

    source: str
    rel_type: str
    target: str
    plan_edge: bool = False


REL_KINDS: dict[str, RelKind] = {
    "HAS_NODE": RelKind("Plan", "HAS_NODE", "PlanNode"),
    "CONSTRAINED_BY": RelKind("Plan", "CONSTRAINED_BY", "ConstraintsSnapshot"),
    "DEPENDS_ON": RelKind("PlanNode", "DEPENDS_ON", "PlanNode", plan_edge=True),
    "PRODUCES": RelKind("PlanNode", "PRODUCES", "PlanNode", plan_edge=True),
    "REQUIRES_APPROVAL": RelKind("PlanNode", "REQUIRES_APPROVAL", "PlanNode", plan_edge=True),
    "SCHEDULED_FOR": RelKind("PlanNode", "SCHEDULED_FOR", "PlanNode", plan_edge=True),
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


def first_plan_id(*, client_id: str, seed: int) -> str:
    """The id the generator gives plan 0 of this client and seed (a re-run would collide)."""
    ids, _ = plan_rngs(client_id=client_id, seed=seed, index=0)
    return seeded_uuid(ids)
