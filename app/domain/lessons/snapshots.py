"""ClientSnapshot (seed 000, 8.2): top assets, top lessons and risks of a time window, with
strategy notes as Markdown in object storage (written before the node that points at them)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from app.artifacts.staged import staged_uploads
from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import NotFound, ValidationFailed
from app.domain.kernel.field_rules import check_aware, json_text
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import missing
from app.domain.lessons import rules
from app.domain.lessons.rules import LessonPolicy
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain

MAX_WINDOW = timedelta(days=400)
MAX_TOP = 50
NOTES_CONTENT_TYPE = "text/markdown; charset=utf-8"
IN_WINDOW = "{v} >= $window_start AND {v} < $window_end"
INPUTS = f"""
CALL () {{
  MATCH (m:PerformanceMetric {{client_id: $client_id}})-[:MEASURES]->(target:Asset|AssetVariant)
  WHERE {IN_WINDOW.format(v="m.window_start")} AND target.client_id = $client_id
  OPTIONAL MATCH (owner:Asset)-[:HAS_VARIANT]->(target)
  WITH DISTINCT m, coalesce(owner, target) AS asset
  WHERE asset:Asset AND asset.client_id = $client_id
  WITH asset, sum(m.value) AS score, count(m) AS metrics ORDER BY score DESC, asset.id LIMIT $top
  RETURN collect(asset {{.id, .title, .asset_type, score: score, metrics: metrics}}) AS assets
}}
CALL () {{
  MATCH (l:Lesson {{client_id: $client_id, retired: false}})
  WHERE l.valid_from < $window_end AND (l.valid_to IS NULL OR l.valid_to >= $window_end)
  WITH l, {rules.effective_cypher("l")} AS effective WHERE effective >= $threshold
  WITH l, effective ORDER BY effective DESC, l.id LIMIT $top
  RETURN collect(l {{.id, .statement, .lesson_type, effective_confidence: effective}}) AS lessons
}}
CALL () {{
  MATCH (e:EngagementEvent {{client_id: $client_id, result: 'fail'}})
  WHERE {IN_WINDOW.format(v="e.created_at")}
  WITH e.event_kind AS event_kind, e.failure_reason AS reason, collect(e.id) AS ids
  ORDER BY size(ids) DESC, event_kind
  RETURN collect({{kind: 'failed_engagement', event_kind: event_kind, failure_reason: reason,
                   count: size(ids), sample_ids: ids[..5]}})[..20] AS engagement
}}
CALL () {{
  MATCH (r:PublishRun {{client_id: $client_id, status: 'failed'}})
  WHERE {IN_WINDOW.format(v="r.created_at")}
  WITH r.platform AS platform, collect(r) AS runs ORDER BY size(runs) DESC, platform
  RETURN collect({{kind: 'failed_publish_runs', platform: platform, count: size(runs),
                   sample_ids: [x IN runs | x.id][..5],
                   errors: [x IN runs WHERE x.error IS NOT NULL | x.error][..3]}}) AS runs
}}
CALL () {{
  MATCH (l:Lesson {{client_id: $client_id, lesson_type: 'what_failed', retired: false}})
  WHERE l.valid_to IS NULL AND ({IN_WINDOW.format(v="l.created_at")}
                                OR {IN_WINDOW.format(v="l.last_evidence_at")})
  WITH l ORDER BY l.created_at DESC
  RETURN collect({{kind: 'failure_lesson', lesson_id: l.id, statement: l.statement}}) AS failures
}}
RETURN assets, lessons, runs + engagement + failures AS risks
"""
CREATE_SNAPSHOT = """
CREATE (s:ClientSnapshot)
SET s = $props
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


def check_window(window_start: datetime, window_end: datetime, top: int) -> None:
    check_aware(window_start, field="from")
    check_aware(window_end, field="to")
    if not window_start < window_end <= window_start + MAX_WINDOW:
        raise ValidationFailed(f"from must be before to, at most {MAX_WINDOW.days} days apart")
    if not 1 <= top <= MAX_TOP:
        raise ValidationFailed(f"top must be from 1 to {MAX_TOP}", field="top")


def strategy_notes(
    inputs: dict[str, Any], *, window_start: datetime, window_end: datetime, author: str
) -> str:
    """The Markdown notes: what performed, what we believe, what to watch."""
    lines = [
        f"# Strategy notes: {window_start.date()} to {window_end.date()}",
        "",
        f"Generated {datetime.now(UTC).isoformat(timespec='seconds')} by {author}.",
        "",
        "## Top assets (sum of metric values in the window)",
    ]
    lines += [
        f"{n}. **{a['title']}** ({a['asset_type']}): {a['score']:g} over {a['metrics']} metrics"
        for n, a in enumerate(inputs["assets"], 1)
    ] or ["No metrics in this window."]
    lines += ["", "## Top lessons (effective confidence)"]
    lines += [
        f"{n}. {x['statement']} ({x['lesson_type']}, {x['effective_confidence']:.2f})"
        for n, x in enumerate(inputs["lessons"], 1)
    ] or ["No active lessons."]
    lines += ["", "## Risks"]
    lines += [f"- {_risk_line(risk)}" for risk in inputs["risks"]] or ["- None seen."]
    return "\n".join(lines) + "\n"


def _risk_line(risk: dict[str, Any]) -> str:
    if risk["kind"] == "failed_publish_runs":
        errors = "; ".join(risk["errors"]) or "no error recorded"
        return f"{risk['count']} failed publish runs on {risk['platform']} ({errors})"
    if risk["kind"] == "failed_engagement":
        reason = risk["failure_reason"] or "unclassified"
        return f"{risk['count']} failed {risk['event_kind']} engagement events ({reason})"
    return f"Failure lesson: {risk['statement']}"


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
    principal.require_writer()
    check_window(window_start, window_end, top)
    params = {
        "client_id": principal.client_id,
        "window_start": window_start,
        "window_end": window_end,
        "top": top,
        "threshold": policy.retire_threshold,
        "now": datetime.now(UTC),
    }
    inputs = plain((await graph.read(INPUTS, params))[0])
    snapshot_id = new_id()
    notes = strategy_notes(
        inputs, window_start=window_start, window_end=window_end, author=principal.actor
    )
    parts = ("snapshots", snapshot_id, "strategy-notes.md")
    now = datetime.now(UTC)
    props = {
        "id": snapshot_id,
        "client_id": principal.client_id,
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

    async def work(tx: Tx) -> dict[str, Any]:
        params = ranked | {"props": props, "client_id": principal.client_id}
        rows = await tx.run(CREATE_SNAPSHOT, params)
        return dict(plain(rows[0]["snapshot"]))

    async with staged_uploads(artifacts, principal) as uploads:
        data = notes.encode("utf-8")
        stored = await uploads.put(parts, data, content_type=NOTES_CONTENT_TYPE)
        props["strategy_notes_uri"] = stored.uri
        record = await graph.in_transaction(work)
    record["risks"] = inputs["risks"]
    return record


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
