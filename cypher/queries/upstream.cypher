// Upstream lineage of an asset, variant or publish package: where did it come from?
// variant -> asset -> blueprint node -> ... -> objective -> plan -> constraints snapshot ->
// the document versions it froze, with the prompts that generated it and the approvals. One
// query; values are parameters.
// Neo4j Browser: :param client_id => '<client uuid>'; :param id => '<asset|variant|package id>';
//   :param graph => true
// `embedding: null`: the search embedding (384 numbers) of searchable records is not lineage.
// `graph` (when $graph): every record found, as nodes, for Neo4j Browser to draw; the API
// sets $graph false and reads the other columns.
CYPHER 25
MATCH (start {id: $id, client_id: $client_id})
WHERE start:AssetVariant OR start:Asset OR start:PublishPackage
WITH start,
     CASE
       WHEN start:AssetVariant THEN [start]
       WHEN start:PublishPackage THEN COLLECT {
         MATCH (start)-[:INCLUDES]->(v:AssetVariant {client_id: $client_id}) RETURN v }
       ELSE []
     END AS variants
WITH start, variants,
     CASE
       WHEN start:Asset THEN [start]
       ELSE COLLECT {
         UNWIND variants AS v
         MATCH (a:Asset {client_id: $client_id})-[:HAS_VARIANT]->(v) RETURN DISTINCT a }
     END AS assets
WITH start, variants, assets,
     COLLECT {
       UNWIND assets AS a
       MATCH (a)-[:FROM_BLUEPRINT]->(b:PlanNode {client_id: $client_id}) RETURN DISTINCT b
     } AS blueprints
// Ancestors follow DEPENDS_ON and REFINES forwards and PRODUCES backwards.
WITH start, variants, assets, blueprints,
     COLLECT {
       UNWIND blueprints AS b
       MATCH (b) ((p:PlanNode)-[r:DEPENDS_ON|REFINES|PRODUCES]-(q:PlanNode)
                  WHERE q.client_id = $client_id
                    AND (r:PRODUCES) = (startNode(r) = q)){1,32} (x:PlanNode)
       RETURN DISTINCT x
     } AS ancestors
WITH start, variants, assets, blueprints, ancestors,
     COLLECT {
       UNWIND blueprints + ancestors AS n
       MATCH (plan:Plan {client_id: $client_id})-[:HAS_NODE]->(n) RETURN DISTINCT plan
     } AS plans
WITH start, variants, assets, blueprints, ancestors, plans,
     start:PublishPackage AND size(plans) = 0 AS package_only
WITH start, variants, assets, blueprints, ancestors,
     CASE WHEN package_only
       THEN COLLECT { MATCH (start)-[:FOR_PLAN]->(p:Plan {client_id: $client_id}) RETURN p }
       ELSE plans END AS plans
WITH start, variants, assets, blueprints, ancestors, plans,
     COLLECT {
       UNWIND plans AS p
       MATCH (p)-[:CONSTRAINED_BY]->(s:ConstraintsSnapshot {client_id: $client_id}) RETURN s
     } AS snapshots
WITH start, variants, assets, blueprints, ancestors, plans, snapshots,
     COLLECT {
       UNWIND snapshots AS s
       MATCH (s)-[:FREEZES]->(frozen:ConstraintVersion {client_id: $client_id})
       WITH DISTINCT frozen ORDER BY frozen.kind, frozen.version
       RETURN frozen
     } AS constraints,
     COLLECT {
       UNWIND assets + variants AS target
       MATCH (pr:PromptArtifact {client_id: $client_id})-[:GENERATED]->(target)
       RETURN DISTINCT pr
     } AS prompts,
     COLLECT {
       UNWIND assets + variants AS target
       MATCH (ap:ApprovalRecord {client_id: $client_id})-[:APPROVES]->(target)
       RETURN DISTINCT ap
     } AS approvals
RETURN
  start {.*, label: labels(start)[0], embedding: null} AS start,
  [v IN variants | v {.*}] AS variants,
  [a IN assets | a {.*, embedding: null}] AS assets,
  [b IN blueprints | b {.*, embedding: null}] AS blueprints,
  [x IN ancestors | x {.*, embedding: null}] AS ancestors,
  [p IN plans | p {.*, embedding: null}] AS plans,
  [s IN snapshots | s {.*}] AS snapshots,
  [frozen IN constraints | frozen {.*}] AS constraints,
  [pr IN prompts | pr {.*}] AS prompts,
  [ap IN approvals | ap {.*}] AS approvals,
  CASE WHEN $graph THEN coll.distinct(
    [start] + variants + assets + blueprints + ancestors + plans + snapshots + constraints
    + prompts + approvals) END AS graph
