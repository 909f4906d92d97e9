"""Real ids from one client (the demo client under `up`) to pre-fill the guide's `:params`
blocks: a published variant with evidence and its plan, an episode that spawned others, the most
contradicted lesson, a failed engagement event with its causes, an agent and platform with
lessons, and the window its metrics fall in. One read query, every node and MemoryLink in it
scoped by the client; what the client lacks stays a placeholder."""

from __future__ import annotations

from typing import Any

from app.graph.executor import GraphExecutor

SAMPLES = """
MATCH (client:Client {name: $name})
WITH client.id AS c
CALL (c) {
  OPTIONAL MATCH (plan:Plan {client_id: c})-[:HAS_NODE]->(:PlanNode {client_id: c})
                 <-[:FROM_BLUEPRINT]-(:Asset {client_id: c})
                 -[:HAS_VARIANT]->(variant:AssetVariant {client_id: c, status: 'published'})
  WHERE EXISTS { (variant)<-[:INCLUDES]-(:PublishPackage {client_id: c})
                 -[:HAS_RUN]->(:PublishRun {client_id: c})
                 -[:HAS_EVIDENCE]->(:EvidenceArtifact {client_id: c}) }
  WITH plan, variant ORDER BY variant.created_at, variant.id LIMIT 1
  RETURN plan.id AS plan, variant.id AS variant
}
CALL (c) {
  OPTIONAL MATCH (episode:AgentEpisode {client_id: c})-[:SPAWNED]->(:AgentEpisode {client_id: c})
  WITH episode, count(*) AS children ORDER BY children DESC, episode.id LIMIT 1
  RETURN episode.id AS episode
}
CALL (c) {
  OPTIONAL MATCH (lesson:Lesson {client_id: c})-[link:CONTRADICTS {client_id: c}]-()
  WITH lesson, count(link) AS links ORDER BY links DESC, lesson.id LIMIT 1
  RETURN lesson.id AS lesson
}
CALL (c) {
  OPTIONAL MATCH (:AgentEpisode {client_id: c})-[:CAUSED {client_id: c}]->
                 (event:EngagementEvent {client_id: c, result: 'fail'})
  WITH event ORDER BY event.created_at, event.id LIMIT 1
  RETURN event.id AS failed_event
}
CALL (c) {
  OPTIONAL MATCH (agent:Agent {client_id: c})-[:RAN]->(episode:AgentEpisode {client_id: c})
                 -[:READ|WROTE]->(:Asset {client_id: c})
                 -[:HAS_VARIANT]->(variant:AssetVariant {client_id: c, status: 'published'})
  WHERE EXISTS { (:Lesson {client_id: c})-[:DERIVED_FROM|EVIDENCED_BY]->(episode) }
  WITH agent.name AS agent, variant.platform AS platform, count(*) AS runs
  ORDER BY runs DESC, agent, platform LIMIT 1
  RETURN agent, platform
}
CALL (c) {
  OPTIONAL MATCH (metric:PerformanceMetric {client_id: c})
  RETURN min(metric.window_start) AS first_window, max(metric.window_start) AS last_window
}
RETURN c AS client_id, plan, variant, episode, lesson, failed_event, agent, platform,
       first_window, last_window
"""

# The guide's placeholders (as the query files' Browser comments spell them) and the sample
# that fills each.
PLACEHOLDERS = {
    "'<client uuid>'": "client_id",
    "'<plan id>'": "plan",
    "'<plan or plan node id>'": "plan",
    "'<variant id>'": "variant",
    "'<asset|variant|package id>'": "variant",
    "'<episode id>'": "episode",
    "'<lesson id>'": "lesson",
    "'<record id>'": "lesson",
    "'<engagement event id>'": "failed_event",
}
# Parameters whose example value in a file is a literal the client's data may not match.
BY_PARAMETER = {"agent_name": "agent", "platform": "platform", "from": "from", "to": "to"}


async def client_samples(graph: GraphExecutor, client_name: str) -> dict[str, str]:
    """Sample name -> Cypher literal, for what the client has."""
    rows = await graph.read_plain(SAMPLES, {"name": client_name})
    if not rows:
        return {}
    row: dict[str, Any] = dict(rows[0])
    found = {
        key: _quoted(str(value))
        for key, value in row.items()
        if value is not None and key not in ("first_window", "last_window")
    }
    if row["first_window"] is not None:
        found["from"] = f"datetime('{row['first_window'].isoformat()}')"
        found["to"] = f"datetime('{row['last_window'].isoformat()}') + duration('P1D')"
    return found


def _quoted(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
