// Replay of an agent episode (seed 000, 0.2 and 7): everything needed to run it again.
// The episode with its inputs (input_refs, retrieval_refs), its agent, parent and children;
// the records it READ, hydrated with their current properties and flagged when they changed
// after the episode started (changed_since) or after the read was recorded
// (changed_after_link); the records it WROTE; the constraints snapshots in force, reached from
// a plan node it read or wrote (-> its plan -> CONSTRAINED_BY) or from an asset
// (-> FROM_BLUEPRINT -> plan node -> plan), each with the document versions it froze; and the
// tool-call log's URI and SHA-256 (on the episode). One query; values are parameters.
// Neo4j Browser: :param client_id => '<client uuid>'; :param id => '<episode id>';
//   :param graph => true
// `graph` (when $graph): every record found, as nodes, for Neo4j Browser to draw; the API
// sets $graph false and reads the other columns.
CYPHER 25
MATCH (episode:AgentEpisode {id: $id, client_id: $client_id})
OPTIONAL MATCH (agent:Agent {client_id: $client_id})-[:RAN]->(episode)
OPTIONAL MATCH (parent:AgentEpisode {client_id: $client_id})-[:SPAWNED]->(episode)
WITH episode, agent, parent,
     COLLECT {
       MATCH (episode)-[:SPAWNED]->(child:AgentEpisode {client_id: $client_id})
       WITH child ORDER BY child.created_at, child.id
       RETURN child
     } AS children,
     COLLECT {
       MATCH (episode)-[r:READ]->(n {client_id: $client_id})
       WITH episode, r, n ORDER BY r.created_at, n.id, r.role
       RETURN {
         label: head(labels(n)), role: r.role, linked_at: r.created_at, record: n,
         changed_since: coalesce(n.updated_at > episode.created_at, false),
         changed_after_link: coalesce(n.updated_at > r.created_at, false)
       }
     } AS reads,
     COLLECT {
       MATCH (episode)-[r:WROTE]->(n {client_id: $client_id})
       WITH episode, r, n ORDER BY r.created_at, n.id, r.role
       RETURN {
         label: head(labels(n)), role: r.role, linked_at: r.created_at, record: n,
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
         snapshot: snapshot, plan: plan, via: via,
         in_force_at_start: snapshot.created_at <= episode.created_at,
         constraints: COLLECT {
           MATCH (snapshot)-[:FREEZES]->(frozen:ConstraintVersion {client_id: $client_id})
           RETURN frozen ORDER BY frozen.kind
         }
       }
     } AS snapshots
RETURN
  episode {.*} AS episode,
  agent {.*} AS agent,
  parent {.*} AS parent,
  [child IN children | child {.*}] AS children,
  COLLECT {
    UNWIND reads AS found
    WITH found, found.record AS n
    RETURN {
      label: found.label, role: found.role, linked_at: found.linked_at, record: n {.*},
      changed_since: found.changed_since, changed_after_link: found.changed_after_link
    }
  } AS reads,
  COLLECT {
    UNWIND writes AS found
    WITH found, found.record AS n
    RETURN {
      label: found.label, role: found.role, linked_at: found.linked_at, record: n {.*},
      changed_since: found.changed_since, changed_after_link: found.changed_after_link
    }
  } AS writes,
  COLLECT {
    UNWIND snapshots AS found
    WITH found, found.snapshot AS snapshot, found.plan AS plan
    RETURN {
      snapshot: snapshot {.*}, plan: plan {.*}, via: found.via,
      in_force_at_start: found.in_force_at_start,
      constraints: [frozen IN found.constraints | frozen {.*}]
    }
  } AS snapshots,
  CASE WHEN $graph THEN coll.distinct([x IN
    [episode, agent, parent] + children + [found IN reads + writes | found.record]
    + coll.flatten([found IN snapshots | [found.plan, found.snapshot] + found.constraints])
    WHERE x IS NOT NULL]) END AS graph
