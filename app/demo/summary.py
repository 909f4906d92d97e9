"""What the demo generator reports: counts, timings and sample ids."""

from __future__ import annotations

from dataclasses import dataclass

from app.demo.progress import ProgressLine
from app.demo.rows import Rows


@dataclass(frozen=True)
class DemoSamples:
    """Ids from plan 0 (always complete or archived) for tests and benchmarks: its plan, first
    blueprint node, package and published variant; the planner's episode (it spawned others);
    a lesson with CONTRADICTS links (superseded); a failed engagement event with a CAUSED link;
    and an agent and platform (a value of Platform) lessonsFromAgentOnPlatform finds lessons of.
    """

    plan_id: str
    blueprint_node_id: str
    package_id: str
    published_variant_id: str
    episode_id: str
    lesson_id: str
    failed_event_id: str
    agent_name: str
    platform: str

    def lines(self) -> list[str]:
        """The samples as the demo command prints them."""
        return [
            f"samples: plan {self.plan_id}, blueprint node {self.blueprint_node_id}, "
            f"package {self.package_id}, published variant {self.published_variant_id}",
            f"         episode {self.episode_id} (spawned others), lesson {self.lesson_id} "
            "(contradicted)",
            f"         failed engagement event {self.failed_event_id} (with a CAUSED link), "
            f"lessons from agent {self.agent_name} on platform {self.platform}",
        ]


@dataclass
class DemoSummary:
    client_id: str
    plans: int
    nodes_by_label: dict[str, int]
    relationships: int
    seconds: float
    samples: DemoSamples
    uploads: int = 0
    upload_seconds: float = 0.0
    graph_seconds: float = 0.0

    @property
    def nodes(self) -> int:
        return sum(self.nodes_by_label.values())

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds else 0.0


@dataclass
class Tally:
    """Running totals of a generation, reported to the progress line as batches commit."""

    counts: dict[str, int]
    bar: ProgressLine
    relationships: int = 0
    uploads: int = 0
    upload_seconds: float = 0.0
    graph_seconds: float = 0.0

    def uploaded(self, count: int, *, seconds: float) -> None:
        self.uploads += count
        self.upload_seconds += seconds

    def written(self, rows: Rows, *, seconds: float, done: int) -> None:
        for label, batch in rows.nodes.items():
            self.counts[label] += len(batch)
        self.relationships += rows.rel_count()
        self.graph_seconds += seconds
        self.bar.update(done=done, nodes=sum(self.counts.values()))
