// Issue 13: many processes, one graph.
// A lease is one node per name (a scheduled job's turn): the constraint makes concurrent first
// acquirers MERGE one node, not one each, and serves the lookup by name (app/graph/leases.py).
CREATE CONSTRAINT lease_name IF NOT EXISTS FOR (l:Lease) REQUIRE l.name IS UNIQUE;
// Embedding claims (app/retrieval/claims.py): a worker that dies leaves claims that expire; the
// others find them by index_claim_until, which only records claimed right now carry.
CREATE INDEX plan_index_claim IF NOT EXISTS FOR (n:Plan) ON (n.index_claim_until);
CREATE INDEX plan_node_index_claim IF NOT EXISTS FOR (n:PlanNode) ON (n.index_claim_until);
CREATE INDEX asset_index_claim IF NOT EXISTS FOR (n:Asset) ON (n.index_claim_until);
CREATE INDEX conversation_thread_index_claim IF NOT EXISTS FOR (n:ConversationThread) ON (n.index_claim_until);
CREATE INDEX conversation_event_index_claim IF NOT EXISTS FOR (n:ConversationEvent) ON (n.index_claim_until);
CREATE INDEX agent_episode_index_claim IF NOT EXISTS FOR (n:AgentEpisode) ON (n.index_claim_until);
CREATE INDEX lesson_index_claim IF NOT EXISTS FOR (n:Lesson) ON (n.index_claim_until);
CREATE INDEX memory_record_index_claim IF NOT EXISTS FOR (n:MemoryRecord) ON (n.index_claim_until);
