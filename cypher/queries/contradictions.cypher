// Everything that contradicts a lesson: CONTRADICTS MemoryLinks in either direction (from or to
// any record) and the lessons that superseded it; `lessons` is the distinct contradicting
// lessons of both kinds.
// Neo4j Browser: :param client_id => '<client uuid>'; :param id => '<lesson id>';
//   :param graph => true
// `graph` (when $graph): every record found, as nodes, for Neo4j Browser to draw; the API
// sets $graph false and reads the other columns.
CYPHER 25
MATCH (lesson:Lesson {id: $id}) WHERE lesson.client_id = $client_id
WITH lesson,
     COLLECT {
       MATCH (lesson)-[r:CONTRADICTS]-(other)
       WHERE r.client_id = $client_id AND other.client_id = $client_id
       WITH r, other, startNode(r) = lesson AS outgoing ORDER BY r.created_at DESC, r.link_id
       RETURN {link_id: r.link_id, relation: type(r), author: r.author, created_at: r.created_at,
               note: r.note, direction: CASE WHEN outgoing THEN 'out' ELSE 'in' END,
               other: other}
     } AS links,
     COLLECT {
       MATCH (newer:Lesson)-[:SUPERSEDES]->(lesson) WHERE newer.client_id = $client_id
       RETURN newer
     } AS superseded_by,
     COLLECT {
       MATCH (lesson)-[r:CONTRADICTS|SUPERSEDES]-(other:Lesson)
       WHERE other.client_id = $client_id
         AND ((type(r) = 'CONTRADICTS' AND r.client_id = $client_id)
              OR (type(r) = 'SUPERSEDES' AND startNode(r) = other))
       WITH DISTINCT other ORDER BY other.created_at DESC
       RETURN other
     } AS lessons
RETURN
  lesson {.*} AS lesson,
  COLLECT {
    UNWIND links AS found
    WITH found, found.other AS other
    RETURN {link_id: found.link_id, relation: found.relation, author: found.author,
            created_at: found.created_at, note: found.note, direction: found.direction,
            other: {id: other.id, label: head(labels(other)), created_at: other.created_at,
                    title: coalesce(other.title, other.name, other.statement,
                                    other.summary_short, other.output_summary, other.summary,
                                    other.caption_text, other.text, other.event_kind,
                                    other.metric_type, other.kind)}}
  } AS links,
  [newer IN superseded_by | newer {.*}] AS superseded_by,
  [other IN lessons | other {.*}] AS lessons,
  CASE WHEN $graph THEN coll.distinct(
    [lesson] + [found IN links | found.other] + superseded_by + lessons) END AS graph
