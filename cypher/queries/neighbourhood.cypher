// The k-hop neighbourhood of any record over MemoryLinks (seed 000, 8.3): the records within
// $hops links (1-4, either direction) through links of the $relations types, nearest first,
// then the links among the records returned. $labels (null = any) filters the records returned;
// the paths may pass through records of other labels. The API runs this text with the record
// labels of the first line refreshed from the model (app/domain/lessons/links.py).
// Neo4j Browser: :param client_id => '<client uuid>'; :param id => '<record id>';
//   :param hops => 2; :param relations => ['SUPPORTS', 'CONTRADICTS', 'CAUSED', 'DERIVED_FROM',
//   'VALIDATES', 'REPLY_TO', 'REFERENCE', 'FOLLOW_UP']; :param labels => null;
//   :param first => 100; :param graph => true
// `graph` (when $graph): the start and the records found, as nodes, for Neo4j Browser to draw
// (it draws the links among them itself); the API sets $graph false and reads the other columns.
CYPHER 25
MATCH (start:Plan|PlanNode|ConstraintsSnapshot|Asset|AssetVariant|PromptArtifact|ApprovalRecord|PublishPackage|PublishRun|EvidenceArtifact|ConversationThread|ConversationEvent|ThreadSummary|EngagementEvent|PerformanceMetric|Agent|AgentEpisode|Lesson|ClientSnapshot {id: $id})
WHERE start.client_id = $client_id
CALL (start) {
  // Breadth-first, one row per record reached: its distance is the fewest links to it.
  MATCH (start)-[links:SUPPORTS|CONTRADICTS|CAUSED|DERIVED_FROM|VALIDATES|REPLY_TO|REFERENCE|FOLLOW_UP*1..4]-(m)
  WHERE all(r IN links WHERE r.client_id = $client_id AND type(r) IN $relations)
  WITH DISTINCT m, min(size(links)) AS distance
  WHERE distance <= $hops AND m <> start AND m.client_id = $client_id
    AND ($labels IS NULL OR head(labels(m)) IN $labels)
  WITH m, distance ORDER BY distance, m.id LIMIT $first
  RETURN collect({node: m, distance: distance}) AS found
}
WITH start, found, [start] + [f IN found | f.node] AS nodes
RETURN
  {id: start.id, label: head(labels(start)), created_at: start.created_at,
   title: coalesce(start.title, start.name, start.statement, start.summary_short,
                   start.output_summary, start.summary, start.caption_text, start.text,
                   start.event_kind, start.metric_type, start.kind)} AS start,
  [f IN found | {distance: f.distance, record: {id: f.node.id, label: head(labels(f.node)),
     created_at: f.node.created_at,
     title: coalesce(f.node.title, f.node.name, f.node.statement, f.node.summary_short,
                     f.node.output_summary, f.node.summary, f.node.caption_text, f.node.text,
                     f.node.event_kind, f.node.metric_type, f.node.kind)}}] AS records,
  COLLECT {
    UNWIND nodes AS a
    MATCH (a)-[r:SUPPORTS|CONTRADICTS|CAUSED|DERIVED_FROM|VALIDATES|REPLY_TO|REFERENCE|FOLLOW_UP]->(b)
    WHERE r.client_id = $client_id AND type(r) IN $relations AND b IN nodes
    RETURN {link_id: r.link_id, relation: type(r), author: r.author, created_at: r.created_at,
            note: r.note, metadata: r.metadata, from_id: a.id, to_id: b.id}
  } AS links,
  CASE WHEN $graph THEN nodes END AS graph
