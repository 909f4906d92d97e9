// Downstream of a plan or plan node: everything it produced, down to publish runs and evidence.
// Descendants follow DEPENDS_ON and REFINES backwards (what depends on it) and PRODUCES forwards.
// Neo4j Browser: :param client_id => '<client uuid>'; :param id => '<plan or plan node id>';
//   :param graph => true
// `embedding: null`: the search embedding (384 numbers) of searchable records is not lineage.
// `graph` (when $graph): every record found, as nodes, for Neo4j Browser to draw; the API
// sets $graph false and reads the other columns.
CYPHER 25
MATCH (start {id: $id, client_id: $client_id})
WHERE start:Plan OR start:PlanNode
WITH start,
     CASE
       WHEN start:Plan THEN COLLECT {
         MATCH (start)-[:HAS_NODE]->(n:PlanNode {client_id: $client_id}) RETURN n }
       ELSE [start] + COLLECT {
         MATCH (start) ((p:PlanNode)-[r:DEPENDS_ON|REFINES|PRODUCES]-(q:PlanNode)
                        WHERE q.client_id = $client_id
                          AND (r:PRODUCES) = (startNode(r) = p)){1,32} (x:PlanNode)
         RETURN DISTINCT x }
     END AS nodes
WITH start, nodes,
     COLLECT {
       UNWIND nodes AS n
       MATCH (a:Asset {client_id: $client_id})-[:FROM_BLUEPRINT]->(n) RETURN DISTINCT a
     } AS assets
WITH start, nodes, assets,
     COLLECT {
       UNWIND assets AS a
       MATCH (a)-[:HAS_VARIANT]->(v:AssetVariant {client_id: $client_id}) RETURN DISTINCT v
     } AS variants
WITH start, nodes, assets, variants,
     COLLECT {
       UNWIND variants AS v
       MATCH (pk:PublishPackage {client_id: $client_id})-[:INCLUDES]->(v) RETURN DISTINCT pk
     } AS packages
WITH start, nodes, assets, variants, packages,
     COLLECT {
       UNWIND packages AS pk
       MATCH (pk)-[:HAS_RUN]->(run:PublishRun {client_id: $client_id}) RETURN DISTINCT run
     } AS runs
WITH start, nodes, assets, variants, packages, runs,
     COLLECT {
       UNWIND assets + variants AS target
       MATCH (pr:PromptArtifact {client_id: $client_id})-[:GENERATED]->(target)
       RETURN DISTINCT pr
     } AS prompts,
     COLLECT {
       UNWIND assets + variants AS target
       MATCH (ap:ApprovalRecord {client_id: $client_id})-[:APPROVES]->(target)
       RETURN DISTINCT ap
     } AS approvals,
     COLLECT {
       UNWIND runs AS run
       MATCH (run)-[:HAS_EVIDENCE]->(e:EvidenceArtifact {client_id: $client_id}) RETURN e
     } AS evidence
RETURN
  start {.*, label: labels(start)[0], embedding: null} AS start,
  [n IN nodes | n {.*, embedding: null}] AS nodes,
  [a IN assets | a {.*, embedding: null}] AS assets,
  [v IN variants | v {.*}] AS variants,
  [pr IN prompts | pr {.*}] AS prompts,
  [ap IN approvals | ap {.*}] AS approvals,
  [pk IN packages | pk {.*}] AS packages,
  [run IN runs | run {.*}] AS runs,
  [e IN evidence | e {.*}] AS evidence,
  CASE WHEN $graph THEN coll.distinct(
    [start] + nodes + assets + variants + prompts + approvals + packages + runs + evidence)
  END AS graph
