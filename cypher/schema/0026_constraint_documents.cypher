// Issue 14: the rules agents work under, as versioned documents (app/model/constraints.py).
// One document per kind and client: concurrent first creations of a kind cannot make two.
CREATE CONSTRAINT constraint_document_id_unique IF NOT EXISTS FOR (n:ConstraintDocument) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT constraint_document_client_kind IF NOT EXISTS FOR (n:ConstraintDocument) REQUIRE (n.client_id, n.kind) IS UNIQUE;
CREATE INDEX constraint_document_client_created IF NOT EXISTS FOR (n:ConstraintDocument) ON (n.client_id, n.created_at);
// Version numbers are unique per document: two concurrent edits cannot both make version n.
CREATE CONSTRAINT constraint_version_id_unique IF NOT EXISTS FOR (n:ConstraintVersion) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT constraint_version_number IF NOT EXISTS FOR (n:ConstraintVersion) REQUIRE (n.document_id, n.version) IS UNIQUE;
CREATE INDEX constraint_version_client_created IF NOT EXISTS FOR (n:ConstraintVersion) ON (n.client_id, n.created_at);
CREATE INDEX constraint_version_document IF NOT EXISTS FOR (n:ConstraintVersion) ON (n.client_id, n.document_id);
CREATE CONSTRAINT knowledge_fact_id_unique IF NOT EXISTS FOR (n:KnowledgeFact) REQUIRE n.id IS UNIQUE;
CREATE INDEX knowledge_fact_client_created IF NOT EXISTS FOR (n:KnowledgeFact) ON (n.client_id, n.created_at);
CREATE INDEX knowledge_fact_document IF NOT EXISTS FOR (n:KnowledgeFact) ON (n.client_id, n.document_id);
CREATE INDEX knowledge_fact_updated IF NOT EXISTS FOR (n:KnowledgeFact) ON (n.updated_at);
CREATE INDEX knowledge_fact_index_claim IF NOT EXISTS FOR (n:KnowledgeFact) ON (n.index_claim_until);
