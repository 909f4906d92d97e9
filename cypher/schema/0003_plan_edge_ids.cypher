// Plan edges are found by edge_id (removePlanEdge); one relationship index per edge type.
CREATE INDEX depends_on_edge_id IF NOT EXISTS FOR ()-[r:DEPENDS_ON]-() ON (r.edge_id);
CREATE INDEX produces_edge_id IF NOT EXISTS FOR ()-[r:PRODUCES]-() ON (r.edge_id);
CREATE INDEX refines_edge_id IF NOT EXISTS FOR ()-[r:REFINES]-() ON (r.edge_id);
CREATE INDEX requires_approval_edge_id IF NOT EXISTS FOR ()-[r:REQUIRES_APPROVAL]-() ON (r.edge_id);
CREATE INDEX scheduled_for_edge_id IF NOT EXISTS FOR ()-[r:SCHEDULED_FOR]-() ON (r.edge_id);
