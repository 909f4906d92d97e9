// Which episodes caused this failure? The agent episodes with a CAUSED MemoryLink to the
// engagement event, or that WROTE it, when the event failed (result 'fail'); none otherwise.
// Neo4j Browser: :param client_id => '<client uuid>'; :param id => '<engagement event id>';
//   :param graph => true
// `graph` (when $graph): the event, the episodes and their agents, as nodes, for Neo4j Browser
// to draw; the API sets $graph false and reads the other columns.
CYPHER 25
MATCH (event:EngagementEvent {id: $id}) WHERE event.client_id = $client_id
WITH event,
     COLLECT {
       MATCH (ep:AgentEpisode)-[r:CAUSED|WROTE]->(event)
       WHERE event.result = 'fail' AND ep.client_id = $client_id
       WITH ep, collect(r) AS rels
       ORDER BY ep.created_at DESC, ep.id
       RETURN {
         episode: ep,
         rels: rels,
         agent: COLLECT {
           MATCH (agent:Agent)-[:RAN]->(ep) WHERE agent.client_id = $client_id RETURN agent
         }[0]
       }
     } AS causes
RETURN
  event {.*} AS event,
  event.result = 'fail' AS failed,
  COLLECT {
    UNWIND causes AS found
    WITH found.episode AS ep, found.rels AS rels, found.agent AS agent
    RETURN {
      episode: ep {.*},
      via: [x IN rels | type(x)],
      caused_link_ids: [x IN rels WHERE type(x) = 'CAUSED' | x.link_id],
      agent: agent {.*}
    }
  } AS episodes,
  CASE WHEN $graph THEN coll.distinct([x IN
    [event] + coll.flatten([found IN causes | [found.episode, found.agent]])
    WHERE x IS NOT NULL]) END AS graph
