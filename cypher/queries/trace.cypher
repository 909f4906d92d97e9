// Trace of a published variant (seed 000, 0.3): why did we do this (plan, objective, campaign,
// blueprint), under which constraints (snapshot, and the document versions it froze), from
// which inputs (prompts, blueprint inputs), approved by whom (approvals), with what evidence
// (publish runs and their artifacts).
// Neo4j Browser: :param client_id => '<client uuid>'; :param id => '<variant id>';
//   :param graph => true
// `embedding: null`: the search embedding (384 numbers) of searchable records is not lineage.
// `graph` (when $graph): every record found, as nodes, for Neo4j Browser to draw; the API
// sets $graph false and reads the other columns.
CYPHER 25
MATCH (asset:Asset {client_id: $client_id})-[:HAS_VARIANT]->
      (variant:AssetVariant {id: $id, client_id: $client_id})
OPTIONAL MATCH (asset)-[:FROM_BLUEPRINT]->(blueprint:PlanNode {client_id: $client_id})
WITH variant, asset, blueprint,
     COLLECT {
       MATCH (blueprint) ((p:PlanNode)-[r:DEPENDS_ON|REFINES|PRODUCES]-(q:PlanNode)
                          WHERE q.client_id = $client_id
                            AND (r:PRODUCES) = (startNode(r) = q)){1,32} (x:PlanNode)
       RETURN DISTINCT x
     } AS ancestors
OPTIONAL MATCH (plan:Plan {client_id: $client_id})-[:HAS_NODE]->(blueprint)
OPTIONAL MATCH (plan)-[:CONSTRAINED_BY]->(snapshot:ConstraintsSnapshot {client_id: $client_id})
WITH variant, asset, blueprint, ancestors, plan, snapshot,
     COLLECT {
       MATCH (pk:PublishPackage {client_id: $client_id})-[:INCLUDES]->(variant) RETURN pk
     } AS packages
WITH variant, asset, blueprint, ancestors, plan, snapshot, packages,
     COLLECT {
       MATCH (snapshot)-[:FREEZES]->(frozen:ConstraintVersion {client_id: $client_id})
       RETURN frozen ORDER BY frozen.kind
     } AS constraints,
     COLLECT {
       UNWIND [asset, variant] AS target
       MATCH (target)<-[:GENERATED]-(pr:PromptArtifact {client_id: $client_id})
       RETURN DISTINCT pr
     } AS prompts,
     COLLECT {
       UNWIND [asset, variant] AS target
       MATCH (target)<-[:APPROVES]-(ap:ApprovalRecord {client_id: $client_id})
       RETURN DISTINCT ap
     } AS approvals,
     COLLECT {
       UNWIND packages AS pk
       MATCH (pk)-[:HAS_RUN]->(run:PublishRun {client_id: $client_id})
       RETURN {run: run, evidence: COLLECT {
         MATCH (run)-[:HAS_EVIDENCE]->(e:EvidenceArtifact {client_id: $client_id}) RETURN e
       }}
     } AS runs
RETURN
  variant {.*} AS variant,
  asset {.*, embedding: null} AS asset,
  blueprint {.*, embedding: null} AS blueprint,
  [x IN ancestors | x {.*, embedding: null}] AS ancestors,
  plan {.*, embedding: null} AS plan,
  snapshot {.*} AS snapshot,
  [frozen IN constraints | frozen {.*}] AS constraints,
  [pr IN prompts | pr {.*}] AS prompts,
  [ap IN approvals | ap {.*}] AS approvals,
  [pk IN packages | pk {.*}] AS packages,
  COLLECT {
    UNWIND runs AS found
    WITH found.run AS run, found.evidence AS evidence
    RETURN run {.*, evidence: [e IN evidence | e {.*}]}
  } AS runs,
  CASE WHEN $graph THEN coll.distinct([x IN
    [variant, asset, blueprint] + ancestors + [plan, snapshot] + constraints + prompts
    + approvals + packages + coll.flatten([found IN runs | [found.run] + found.evidence])
    WHERE x IS NOT NULL]) END AS graph
