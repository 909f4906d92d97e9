"""Client snapshots on a schedule (issue 14): the background job's run and one run from the
shell (`agentmem client-snapshots`), both through the same domain function, which writes each
client's last completed window once (app/domain/lessons/scheduled.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from datetime import UTC, datetime

from app.artifacts.store import ArtifactStore, open_store
from app.domain.lessons import LessonPolicy, WindowSnapshot, write_due_snapshots
from app.graph.executor import GraphExecutor
from app.model.enums import SnapshotPeriod
from app.runtime.services import connected
from app.settings import Settings

SNAPSHOT_JOB = "client-snapshots"  # its lease's name


def snapshot_run(
    graph: GraphExecutor, artifacts: ArtifactStore, settings: Settings
) -> Callable[[], Awaitable[list[WindowSnapshot]]]:
    """The job's run: every client, the periods of the settings, windows completed by now."""

    async def run() -> list[WindowSnapshot]:
        return await write_due_snapshots(
            graph,
            artifacts,
            periods=settings.client_snapshot_periods,
            at=datetime.now(UTC),
            policy=LessonPolicy.of(settings),
        )

    return run


async def run_client_snapshots(
    settings: Settings,
    *,
    periods: Iterable[SnapshotPeriod | str],
    at: datetime,
    client_id: str | None = None,
) -> list[WindowSnapshot]:
    """One run outside the API process; what it wrote and what it found."""
    async with connected(settings) as graph:
        artifacts = open_store(settings)
        try:
            return await write_due_snapshots(
                graph,
                artifacts,
                periods=periods,
                at=at,
                policy=LessonPolicy.of(settings),
                client_id=client_id,
            )
        finally:
            artifacts.close()
