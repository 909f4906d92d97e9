"""What a client snapshot reports of one window, read in one query: the top assets by metric
values, the top lessons by effective confidence, and the risks (failed publish runs, failed
engagement, failure lessons, escalations, contradicted lessons)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.domain.lessons import rules
from app.domain.lessons.rules import LessonPolicy
from app.graph.executor import GraphExecutor
from app.graph.values import plain

IN_WINDOW = "{v} >= $window_start AND {v} < $window_end"
# A lesson that held at the window's end (not yet superseded then); `retired` is today's flag.
VALID_AT_END = (
    "{v}.valid_from < $window_end AND ({v}.valid_to IS NULL OR {v}.valid_to >= $window_end)"
)
TOP = f"""
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
  MATCH (l:Lesson {{client_id: $client_id, retired: false}}) WHERE {VALID_AT_END.format(v="l")}
  WITH l, {rules.effective_cypher("l")} AS effective WHERE effective >= $threshold
  WITH l, effective ORDER BY effective DESC, l.id LIMIT $top
  RETURN collect(l {{.id, .statement, .lesson_type, effective_confidence: effective}}) AS lessons
}}
"""
FAILURES = f"""
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
"""
# Escalations, by what escalated: episodes closed as escalated and escalation engagement events
# of the window; threads escalated now that changed since the window began (a thread keeps no
# time of its escalation).
ESCALATIONS = f"""
CALL () {{
  CALL () {{
    MATCH (t:ConversationThread {{client_id: $client_id, status: 'escalated'}})
    WHERE t.created_at < $window_end AND t.updated_at >= $window_start
    WITH t ORDER BY t.updated_at DESC, t.id
    RETURN 'conversation_thread' AS source, collect(t.id) AS ids
    UNION ALL
    MATCH (e:AgentEpisode {{client_id: $client_id, status: 'escalated'}})
    WHERE {IN_WINDOW.format(v="e.closed_at")}
    WITH e ORDER BY e.closed_at DESC, e.id
    RETURN 'agent_episode' AS source, collect(e.id) AS ids
    UNION ALL
    MATCH (e:EngagementEvent {{client_id: $client_id, event_kind: 'escalation'}})
    WHERE {IN_WINDOW.format(v="e.created_at")}
    WITH e ORDER BY e.created_at DESC, e.id
    RETURN 'engagement_event' AS source, collect(e.id) AS ids
  }}
  WITH source, ids WHERE size(ids) > 0
  RETURN collect({{kind: 'escalations', source: source, count: size(ids),
                   sample_ids: ids[..5]}}) AS escalations
}}
"""
# Lessons that held at the window's end with a CONTRADICTS link (either way, as the
# contradictions query reads them) recorded by then, from a record that still held: a lesson
# superseded by then no longer counts against the one that replaced it.
CONTRADICTED = f"""
CALL () {{
  MATCH (l:Lesson {{client_id: $client_id, retired: false}}) WHERE {VALID_AT_END.format(v="l")}
  MATCH (l)-[r:CONTRADICTS]-(other)
  WHERE r.client_id = $client_id AND other.client_id = $client_id AND r.created_at < $window_end
    AND NOT (other:Lesson AND (other.retired OR NOT ({VALID_AT_END.format(v="other")})))
  WITH l, collect(DISTINCT other.id) AS others, max(r.created_at) AS latest
  ORDER BY latest DESC, l.id
  RETURN collect({{kind: 'contradicted_lesson', lesson_id: l.id, statement: l.statement,
                   count: size(others), sample_ids: others[..5]}})[..20] AS contradicted
}}
"""
INPUTS = f"""{TOP}{FAILURES}{ESCALATIONS}{CONTRADICTED}
RETURN assets, lessons, runs + engagement + failures + escalations + contradicted AS risks
"""


async def read_inputs(
    graph: GraphExecutor,
    *,
    client_id: str,
    window_start: datetime,
    window_end: datetime,
    top: int,
    policy: LessonPolicy,
) -> dict[str, Any]:
    """{assets, lessons, risks} of the window; lessons ranked by what they are worth now."""
    params = {
        "client_id": client_id,
        "window_start": window_start,
        "window_end": window_end,
        "top": top,
        "threshold": policy.retire_threshold,
        "now": datetime.now(UTC),
    }
    return dict(plain((await graph.read(INPUTS, params))[0]))
