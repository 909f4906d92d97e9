// Which episodes caused this failure? The agent episodes with a CAUSED MemoryLink to the
// engagement event, or that WROTE it, when the event failed (result 'fail'); none otherwise.
// Neo4j Browser: :param client_id => '<client uuid>'; :param id => '<engagement event id>'
CYPHER 25
MATCH (event:EngagementEvent {id: $id}) WHERE event.client_id = $client_id
RETURN
  event {.*} AS event,
  event.result = 'fail' AS failed,
  COLLECT {
    MATCH (ep:AgentEpisode)-[r:CAUSED|WROTE]->(event)
    WHERE event.result = 'fail' AND ep.client_id = $client_id
    WITH ep, collect(r) AS rels
    ORDER BY ep.created_at DESC, ep.id
    RETURN {
      episode: ep {.*},
      via: [x IN rels | type(x)],
      caused_link_ids: [x IN rels WHERE type(x) = 'CAUSED' | x.link_id],
      agent: COLLECT {
        MATCH (agent:Agent)-[:RAN]->(ep) WHERE agent.client_id = $client_id RETURN agent {.*}
      }[0]
    }
  } AS episodes
