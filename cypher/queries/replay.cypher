// Replay of an agent episode (seed 000, 0.2 and 7): everything needed to run it again.
// The episode with its inputs (input_refs, retrieval_refs), its agent, parent and children;
// the records it READ, hydrated with their current properties and flagged when they changed
// after the episode started (changed_since) or after the read was recorded
// (changed_after_link); the records it WROTE; the constraints snapshots in force, reached from
// a plan node it read or wrote (-> its plan -> CONSTRAINED_BY) or from an asset
// (-> FROM_BLUEPRINT -> plan node -> plan), each with the document versions it froze; and the
// tool-call log's URI and SHA-256 (on the episode). One query; values are parameters.
// Neo4j Browser: :param client_id => '<client uuid>'; :param id => '<episode id>'
CYPHER 25
MATCH (episode:AgentEpisode {id: $id, client_id: $client_id})
OPTIONAL MATCH (agent:Agent {client_id: $client_id})-[:RAN]->(episode)
OPTIONAL MATCH (parent:AgentEpisode {client_id: $client_id})-[:SPAWNED]->(episode)
RETURN
  episode {.*} AS episode,
  agent {.*} AS agent,
  parent {.*} AS parent,
  COLLECT {
    MATCH (episode)-[:SPAWNED]->(child:AgentEpisode {client_id: $client_id})
    WITH child ORDER BY child.created_at, child.id
    RETURN child {.*}
  } AS children,
  COLLECT {
    MATCH (episode)-[r:READ]->(n {client_id: $client_id})
    WITH episode, r, n ORDER BY r.created_at, n.id, r.role
    RETURN {
      label: head(labels(n)), role: r.role, linked_at: r.created_at, record: n {.*},
      changed_since: coalesce(n.updated_at > episode.created_at, false),
      changed_after_link: coalesce(n.updated_at > r.created_at, false)
    }
  } AS reads,
  COLLECT {
    MATCH (episode)-[r:WROTE]->(n {client_id: $client_id})
    WITH episode, r, n ORDER BY r.created_at, n.id, r.role
    RETURN {
      label: head(labels(n)), role: r.role, linked_at: r.created_at, record: n {.*},
      changed_since: coalesce(n.updated_at > episode.created_at, false),
      changed_after_link: coalesce(n.updated_at > r.created_at, false)
    }
  } AS writes,
  COLLECT {
    MATCH (episode)-[:READ|WROTE]->(n {client_id: $client_id})
    CALL (n) {
      MATCH (plan:Plan {client_id: $client_id})-[:HAS_NODE]->(n:PlanNode)
      RETURN plan
      UNION
      MATCH (plan:Plan {client_id: $client_id})-[:HAS_NODE]->(:PlanNode {client_id: $client_id})
            <-[:FROM_BLUEPRINT]-(n:Asset)
      RETURN plan
    }
    MATCH (plan)-[:CONSTRAINED_BY]->(snapshot:ConstraintsSnapshot {client_id: $client_id})
    WITH episode, plan, snapshot, collect(DISTINCT n.id) AS via
    ORDER BY snapshot.created_at, snapshot.id
    RETURN {
      snapshot: snapshot {.*}, plan: plan {.*}, via: via,
      in_force_at_start: snapshot.created_at <= episode.created_at,
      constraints: COLLECT {
        MATCH (snapshot)-[:FREEZES]->(frozen:ConstraintVersion {client_id: $client_id})
        RETURN frozen {.*} ORDER BY frozen.kind
      }
    }
  } AS snapshots
