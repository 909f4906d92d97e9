// Retrieval (issue 5): every searchable record carries the Searchable label once embedded.
// One vector index (all-MiniLM-L6-v2, 384 dimensions, cosine, unquantised for recall) filtered by
// client_id and record_type inside the index (Cypher 25 SEARCH ... WHERE), and one full-text
// (BM25, English analyzer) index over the same text, the client key and the record type.
CYPHER 25 CREATE VECTOR INDEX searchable_embedding IF NOT EXISTS FOR (n:Searchable) ON n.embedding WITH [n.client_id, n.record_type] OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false, `vector.hnsw.m`: 16, `vector.hnsw.ef_construction`: 100}};
CREATE FULLTEXT INDEX searchable_text IF NOT EXISTS FOR (n:Searchable) ON EACH [n.search_text, n.search_client, n.record_type] OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
CREATE INDEX searchable_client_type IF NOT EXISTS FOR (n:Searchable) ON (n.client_id, n.record_type);
CREATE INDEX searchable_model IF NOT EXISTS FOR (n:Searchable) ON (n.embedding_model);
// The embedding worker finds changed records by updated_at.
CREATE INDEX plan_updated IF NOT EXISTS FOR (n:Plan) ON (n.updated_at);
CREATE INDEX plan_node_updated IF NOT EXISTS FOR (n:PlanNode) ON (n.updated_at);
CREATE INDEX asset_updated IF NOT EXISTS FOR (n:Asset) ON (n.updated_at);
CREATE INDEX thread_updated IF NOT EXISTS FOR (n:ConversationThread) ON (n.updated_at);
CREATE INDEX event_updated IF NOT EXISTS FOR (n:ConversationEvent) ON (n.updated_at);
CREATE INDEX episode_updated IF NOT EXISTS FOR (n:AgentEpisode) ON (n.updated_at);
CREATE INDEX lesson_updated IF NOT EXISTS FOR (n:Lesson) ON (n.updated_at);
CREATE INDEX memory_record_updated IF NOT EXISTS FOR (n:MemoryRecord) ON (n.updated_at);
CREATE CONSTRAINT embedding_cursor_label IF NOT EXISTS FOR (n:EmbeddingCursor) REQUIRE n.label IS UNIQUE;
