// What did agent X learn from the runs that touched Y? The lessons derived from the episodes of
// agent $agent_name that READ or WROTE an asset published on $platform (the asset has a
// published variant on that platform). "Derived from" is a DERIVED_FROM MemoryLink from the
// lesson to the episode, or the lesson EVIDENCED_BY the episode. The $first lessons of highest
// effective confidence now (confidence * 0.5 ^ (days since last evidence / half-life)) come
// with the episodes they were derived from (and the assets those touched there) and all their
// evidence; `total` counts every lesson found.
// Neo4j Browser: :param client_id => '<client uuid>'; :param agent_name => 'creator';
//   :param platform => 'ig'; :param first => 50; :param graph => true
// `graph` (when $graph): the agent and every record of the lessons returned, as nodes, for
// Neo4j Browser to draw; the API sets $graph false and reads the other columns.
CYPHER 25
OPTIONAL MATCH (agent:Agent {client_id: $client_id, name: $agent_name})
CALL (agent) {
  MATCH (agent)-[:RAN]->(ep:AgentEpisode)-[:READ|WROTE]->(asset:Asset)
  WHERE ep.client_id = $client_id AND asset.client_id = $client_id
    AND EXISTS {
      MATCH (asset)-[:HAS_VARIANT]->(v:AssetVariant)
      WHERE v.client_id = $client_id AND v.platform = $platform AND v.status = 'published'
    }
  WITH ep, collect(DISTINCT asset) AS assets
  MATCH (lesson:Lesson)-[how:DERIVED_FROM|EVIDENCED_BY]->(ep)
  WHERE lesson.client_id = $client_id
  WITH lesson, ep, assets, collect(DISTINCT type(how)) AS via ORDER BY ep.created_at DESC
  WITH lesson, collect({episode: ep, via: via, assets: assets}) AS derived
  WITH lesson, derived,
       lesson.confidence * 0.5 ^ (CASE WHEN lesson.last_evidence_at > datetime() THEN 0.0
         ELSE (datetime().epochMillis - lesson.last_evidence_at.epochMillis) / 86400000.0 END
         / lesson.decay_half_life_days) AS effective
  ORDER BY effective DESC, lesson.id
  RETURN collect({lesson: lesson, derived: derived, effective: effective}) AS ranked
}
CALL (ranked) {
  UNWIND ranked[..$first] AS found
  WITH found.lesson AS lesson, found.derived AS derived, found.effective AS effective
  RETURN collect({
    lesson: lesson, derived: derived, effective: effective,
    metrics: COLLECT {
      MATCH (lesson)-[:EVIDENCED_BY]->(m:PerformanceMetric) WHERE m.client_id = $client_id
      RETURN m
    },
    episodes: COLLECT {
      MATCH (lesson)-[:EVIDENCED_BY]->(e:AgentEpisode) WHERE e.client_id = $client_id
      RETURN e
    }
  }) AS top
}
RETURN
  agent {.*} AS agent,
  size(ranked) AS total,
  COLLECT {
    UNWIND top AS found
    WITH found.lesson AS lesson, found.derived AS derived, found.effective AS effective,
         found.metrics AS metrics, found.episodes AS episodes
    RETURN lesson {.*,
      effective_confidence: effective,
      derived_from: [d IN derived | {episode: properties(d.episode), via: d.via,
                                     assets: [a IN d.assets | properties(a)]}],
      evidence_metrics: [m IN metrics | m {.*}],
      evidence_episodes: [e IN episodes | e {.*}]
    }
  } AS lessons,
  CASE WHEN $graph THEN coll.distinct([x IN
    [agent] + coll.flatten([found IN top | [found.lesson] + found.metrics + found.episodes
      + coll.flatten([d IN found.derived | [d.episode] + d.assets])])
    WHERE x IS NOT NULL]) END AS graph
