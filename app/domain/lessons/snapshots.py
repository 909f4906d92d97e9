"""ClientSnapshot (seed 000, 8.2): top assets, top lessons and risks of a time window, with
strategy notes as Markdown in object storage (written before the node that points at them)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from app.artifacts.staged import staged_uploads
from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import NotFound, ValidationFailed
from app.domain.kernel.field_rules import check_aware, json_text
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import missing
from app.domain.lessons.rules import LessonPolicy
from app.domain.lessons.snapshot_inputs import read_inputs
from app.domain.lessons.snapshot_notes import strategy_notes
from app.graph.change_feed import Changed
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import ChangeAction, SnapshotPeriod

MAX_WINDOW = timedelta(days=400)
MAX_TOP = 50
DEFAULT_TOP = 10
NOTES_CONTENT_TYPE = "text/markdown; charset=utf-8"
NOTES_NAME = "strategy-notes.md"
# The ranked TOP_ASSET / TOP_LESSON relationships of snapshot `s`, and the snapshot.
LINK_TOP = """
WITH s
CALL (s) {
  UNWIND $assets AS top
  MATCH (a:Asset {id: top.id, client_id: $client_id})
  CREATE (s)-[:TOP_ASSET {rank: top.rank, score: top.score}]->(a)
}
CALL (s) {
  UNWIND $lessons AS top
  MATCH (l:Lesson {id: top.id, client_id: $client_id})
  CREATE (s)-[:TOP_LESSON {rank: top.rank, effective_confidence: top.effective_confidence}]->(l)
}
RETURN s {.*} AS snapshot
"""
CREATE_SNAPSHOT = "CREATE (s:ClientSnapshot) SET s = $props" + LINK_TOP
# A node claimed in the same transaction (app/domain/lessons/scheduled.py) gets the rest.
FILL_SNAPSHOT = "MATCH (s:ClientSnapshot {id: $props.id, client_id: $client_id}) SET s += $props"
FILL_SNAPSHOT += LINK_TOP


@dataclass(frozen=True)
class SnapshotDraft:
    """A snapshot read and written up, not yet stored: its node's properties (the notes' URI
    comes with the upload), the ranked tops and the Markdown notes."""

    props: dict[str, Any]
    ranked: dict[str, list[dict[str, Any]]]
    notes: bytes
    risks: list[dict[str, Any]]

    def params(self) -> dict[str, Any]:
        return self.ranked | {"props": self.props, "client_id": self.props["client_id"]}

    def created(self) -> Changed:
        client_id, snapshot_id = self.props["client_id"], self.props["id"]
        return Changed(client_id, "ClientSnapshot", snapshot_id, ChangeAction.CREATED)


def check_window(window_start: datetime, window_end: datetime, top: int) -> None:
    check_aware(window_start, field="from")
    check_aware(window_end, field="to")
    if not window_start < window_end <= window_start + MAX_WINDOW:
        raise ValidationFailed(f"from must be before to, at most {MAX_WINDOW.days} days apart")
    if not 1 <= top <= MAX_TOP:
        raise ValidationFailed(f"top must be from 1 to {MAX_TOP}", field="top")


async def draft_snapshot(
    graph: GraphExecutor,
    *,
    principal: Principal,
    period: SnapshotPeriod,
    window_start: datetime,
    window_end: datetime,
    top: int,
    policy: LessonPolicy,
) -> SnapshotDraft:
    """Reads the window and writes up the snapshot of the caller's client; stores nothing."""
    client_id = principal.client_id
    inputs = await read_inputs(
        graph,
        client_id=client_id,
        window_start=window_start,
        window_end=window_end,
        top=top,
        policy=policy,
    )
    notes = strategy_notes(
        inputs, period=period, start=window_start, end=window_end, author=principal.actor
    )
    now = datetime.now(UTC)
    props = {
        "id": new_id(),
        "client_id": client_id,
        "period": period.value,
        "time_window_start": window_start,
        "time_window_end": window_end,
        "top_assets": [a["id"] for a in inputs["assets"]],
        "top_lessons": [x["id"] for x in inputs["lessons"]],
        "risks": json_text(inputs["risks"], field="risks", kinds=(list,)),
        "created_at": now,
        "updated_at": now,
    }
    ranked = {
        "assets": [a | {"rank": n} for n, a in enumerate(inputs["assets"], 1)],
        "lessons": [x | {"rank": n} for n, x in enumerate(inputs["lessons"], 1)],
    }
    return SnapshotDraft(props, ranked, notes.encode("utf-8"), inputs["risks"])


async def generate_client_snapshot(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    window_start: datetime,
    window_end: datetime,
    top: int,
    policy: LessonPolicy,
) -> dict[str, Any]:
    """A snapshot of any window (CUSTOM); asking for the same window again writes another."""
    principal.require_writer()
    check_window(window_start, window_end, top)
    draft = await draft_snapshot(
        graph,
        principal=principal,
        period=SnapshotPeriod.CUSTOM,
        window_start=window_start,
        window_end=window_end,
        top=top,
        policy=policy,
    )

    async def work(tx: Tx) -> dict[str, Any]:
        rows = await tx.run(CREATE_SNAPSHOT, draft.params())
        draft.created().note()
        return dict(plain(rows[0]["snapshot"]))

    async with staged_uploads(artifacts, principal) as uploads:
        parts = ("snapshots", draft.props["id"], NOTES_NAME)
        stored = await uploads.put(parts, draft.notes, content_type=NOTES_CONTENT_TYPE)
        draft.props["strategy_notes_uri"] = stored.uri
        record = await graph.in_transaction(work)
    return record | {"risks": draft.risks}


async def strategy_notes_text(
    artifacts: ArtifactStore, *, principal: Principal, snapshot: dict[str, Any]
) -> str | None:
    uri = snapshot.get("strategy_notes_uri")
    if uri is None:
        return None
    try:
        return (await artifacts.get(principal, uri)).decode("utf-8")
    except NotFound:
        raise missing("strategy notes of client snapshot", snapshot["id"]) from None
