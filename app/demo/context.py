"""The per-plan context of the demo generator: seeded ids, times inside the plan's week, and
helpers that append nodes, relationships and uploads to the batch's rows."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from app.artifacts.store import client_key
from app.demo.rows import Rows, Upload, plan_rngs, seeded_uuid
from app.domain.kernel.principal import Principal
from app.model.enums import PlanNodeType, Role

NEWEST_WEEK = datetime(2026, 11, 23, tzinfo=UTC)  # a Monday; fixed so output is deterministic
PLANS_PER_WEEK = 3


def week_start(*, index: int, plans: int) -> datetime:
    """Plans run oldest (index 0) to newest; three plans (one per service line) a week."""
    return NEWEST_WEEK - timedelta(weeks=(plans - 1 - index) // PLANS_PER_WEEK)


@dataclass
class PlanContext:
    """Draws ids, times and content for one plan and appends its rows to the batch."""

    client_id: str
    bucket: str
    seed: int
    index: int
    start: datetime
    rows: Rows
    plan_id: str = ""

    def __post_init__(self) -> None:
        self.ids, self.rng = plan_rngs(client_id=self.client_id, seed=self.seed, index=self.index)

    def new_id(self) -> str:
        return seeded_uuid(self.ids)

    def at(self, *, day: float, spread: float = 0.25) -> datetime:
        """A moment `day` days (plus up to `spread`) into the plan's week."""
        offset = day + self.rng.uniform(0, spread)
        return (self.start + timedelta(days=offset)).replace(microsecond=0)

    def record(
        self,
        label: str,
        *,
        created_at: datetime,
        updated_at: datetime | None = None,
        node_id: str | None = None,
        **props: Any,
    ) -> str:
        """Append one node (id, client_id, timestamps and `props`); returns its id."""
        node_id = node_id or self.new_id()
        self.rows.nodes[label].append(
            {
                "id": node_id,
                "client_id": self.client_id,
                "created_at": created_at,
                "updated_at": updated_at or created_at,
                **props,
            }
        )
        return node_id

    def link(self, kind: str, *, source: str, target: str) -> None:
        self.rows.rels[kind].append({"from_id": source, "to_id": target})

    def plan_node(
        self,
        *,
        node_type: PlanNodeType,
        title: str,
        inputs: dict[str, Any],
        summary: str,
        status: str,
    ) -> str:
        """A PlanNode of this plan (HAS_NODE from the plan); `inputs` is stored as JSON text."""
        created = self.at(day=0.1, spread=0.3)
        node_id = self.record(
            "PlanNode",
            created_at=created,
            updated_at=created + timedelta(hours=self.rng.randint(0, 120)),
            plan_id=self.plan_id,
            node_type=node_type.value,
            title=title,
            inputs=json.dumps(inputs, ensure_ascii=False),
            summary=summary,
            status=status,
            quality_score=self.rng.randint(55, 98),
            cost_estimate=round(self.rng.uniform(0.2, 6.0), 2),
        )
        self.link("HAS_NODE", source=self.plan_id, target=node_id)
        return node_id

    def edge(self, kind: str, *, source: str, target: str) -> None:
        """A plan edge: a typed relationship carrying edge_id, plan_id, client_id, created_at."""
        props = {
            "edge_id": self.new_id(),
            "plan_id": self.plan_id,
            "client_id": self.client_id,
            "created_at": self.at(day=0.4, spread=0.1),
        }
        self.rows.rels[kind].append({"from_id": source, "to_id": target, "props": props})

    def upload(self, *, parts: tuple[str, ...], data: bytes, content_type: str) -> Upload:
        """Queue an object for S3; its uri is the one ArtifactStore.put gives it."""
        principal = Principal(client_id=self.client_id, role=Role.ADMIN, key_id="demo")
        uri = f"s3://{self.bucket}/{client_key(principal, *parts)}"
        item = Upload(parts, data, content_type, uri, hashlib.sha256(data).hexdigest())
        self.rows.uploads.append(item)
        return item

    def checksum(self, *parts: int) -> str:
        """A variant checksum, unique per (seed, plan, position): per client, not global."""
        text = ":".join(str(part) for part in ("demo", self.seed, self.index, *parts))
        return "sha256:" + hashlib.sha256(text.encode()).hexdigest()
