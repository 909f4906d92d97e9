// Issue 15 (seeds 001 and 004): memory indexes, one per (scope, model), the scope '' for the
// deployment or a client id (app/retrieval/memory_index.py). A vector index has one dimension:
// each model but the first keeps its vectors in its own property and vector index, made when
// the model is first registered (app/retrieval/vector_index.py), not here.
CREATE CONSTRAINT memory_index_scope_model IF NOT EXISTS FOR (n:MemoryIndex) REQUIRE (n.scope, n.model) IS UNIQUE;
// `reembed` walks a client's searchable records in id order, from where its last batch ended.
CREATE INDEX searchable_client_id IF NOT EXISTS FOR (n:Searchable) ON (n.client_id, n.id);
