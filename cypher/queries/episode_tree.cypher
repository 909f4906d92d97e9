// The tree of an agent episode (seed 000, 7): the path up to the root episode (parent first,
// root last) and the subtree it SPAWNED down to $max_depth levels, breadth first; each
// descendant says whether it has children of its own (so a depth-limited tree shows where it
// was cut). One query; values are parameters.
// Neo4j Browser: :param client_id => '<client uuid>'; :param id => '<episode id>';
//                :param max_depth => 5; :param graph => true
// `graph` (when $graph): every episode found, as nodes, for Neo4j Browser to draw; the API
// sets $graph false and reads the other columns.
CYPHER 25
MATCH (episode:AgentEpisode {id: $id, client_id: $client_id})
WITH episode,
     COLLECT {
       MATCH path = (ancestor:AgentEpisode)-[:SPAWNED]->+(episode)
       WHERE all(x IN nodes(path) WHERE x.client_id = $client_id)
       WITH ancestor, length(path) AS up ORDER BY up
       RETURN ancestor
     } AS ancestors,
     COLLECT {
       // allReduce prunes the expansion at $max_depth (the literal 32 is the API's ceiling).
       MATCH (episode)
             (()-[spawned:SPAWNED]->(x:AgentEpisode WHERE x.client_id = $client_id)){1,32}
             (descendant)
       WHERE allReduce(depth = 0, s IN spawned | depth + 1, depth <= $max_depth)
       WITH descendant, size(spawned) AS depth ORDER BY depth, descendant.created_at, descendant.id
       RETURN {
         depth: depth,
         episode: descendant,
         has_children: EXISTS { (descendant)-[:SPAWNED]->(:AgentEpisode {client_id: $client_id}) }
       }
     } AS descendants
RETURN
  episode {.*} AS episode,
  [ancestor IN ancestors | ancestor {.*}] AS ancestors,
  COLLECT {
    UNWIND descendants AS found
    WITH found.depth AS depth, found.episode AS descendant, found.has_children AS has_children
    RETURN {depth: depth, episode: descendant {.*}, has_children: has_children}
  } AS descendants,
  CASE WHEN $graph THEN coll.distinct(
    [episode] + ancestors + [found IN descendants | found.episode]) END AS graph
