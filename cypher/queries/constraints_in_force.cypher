// Constraints in force for a plan: the constraint document versions its approval froze (the
// plan's constraints snapshot, by kind), or, before it is approved (no snapshot), the current
// version of each of the client's constraint documents.
// Neo4j Browser: :param client_id => '<client uuid>'; :param id => '<plan id>';
//   :param graph => true
// `graph` (when $graph): the plan, its snapshot and the versions, as nodes, for Neo4j Browser
// to draw; the API sets $graph false and reads the other columns.
CYPHER 25
MATCH (p:Plan {id: $id, client_id: $client_id})
OPTIONAL MATCH (p)-[:CONSTRAINED_BY]->(s:ConstraintsSnapshot {client_id: $client_id})
WITH p, s,
  CASE WHEN s IS NULL
    THEN COLLECT {
      MATCH (:ConstraintDocument {client_id: $client_id})-[:CURRENT_VERSION]->(v)
      RETURN v ORDER BY v.kind }
    ELSE COLLECT {
      MATCH (s)-[:FREEZES]->(v:ConstraintVersion {client_id: $client_id})
      RETURN v ORDER BY v.kind }
  END AS versions
RETURN
  p.status AS status,
  s {.*} AS snapshot,
  [v IN versions | v {.*}] AS versions,
  CASE WHEN $graph THEN coll.distinct([x IN [p, s] + versions WHERE x IS NOT NULL]) END AS graph
