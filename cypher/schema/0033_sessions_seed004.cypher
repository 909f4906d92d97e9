// Issue 15, seed 004: session types, memory types and agent state per session.
// Sessions are listed by type (seed 004 idx_sessions_session_type); those started before
// session types were conversations.
CREATE INDEX memory_session_type IF NOT EXISTS FOR (n:MemorySession) ON (n.client_id, n.session_type);
MATCH (s:MemorySession) WHERE s.session_type IS NULL SET s.session_type = 'conversation';
// Memory records are listed by seed 004's memory type (idx_memory_entries_memory_type).
CREATE INDEX memory_record_memory_type IF NOT EXISTS FOR (n:MemoryRecord) ON (n.client_id, n.memory_type);
// One state per agent and session (seed 004 unique_agent_session): concurrent first saves
// MERGE the same node. The sweeper finds expired states by expires_at.
CREATE CONSTRAINT agent_session_state_id_unique IF NOT EXISTS FOR (n:AgentSessionState) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT agent_session_state_agent_session IF NOT EXISTS FOR (n:AgentSessionState) REQUIRE (n.client_id, n.agent_name, n.session_id) IS UNIQUE;
CREATE INDEX agent_session_state_client_created IF NOT EXISTS FOR (n:AgentSessionState) ON (n.client_id, n.created_at);
CREATE INDEX agent_session_state_expires IF NOT EXISTS FOR (n:AgentSessionState) ON (n.expires_at);
