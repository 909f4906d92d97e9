// The general agent memory (seeds 001-004): records, versions, sessions, subjects, cycles,
// feedback learning and the access log.
CREATE CONSTRAINT memory_record_id_unique IF NOT EXISTS FOR (n:MemoryRecord) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT memory_record_key IF NOT EXISTS FOR (n:MemoryRecord) REQUIRE (n.client_id, n.namespace, n.key) IS UNIQUE;
CREATE CONSTRAINT memory_version_id_unique IF NOT EXISTS FOR (n:MemoryVersion) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT memory_version_unique IF NOT EXISTS FOR (n:MemoryVersion) REQUIRE (n.record_id, n.version) IS UNIQUE;
CREATE CONSTRAINT memory_artifact_id_unique IF NOT EXISTS FOR (n:MemoryArtifact) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT memory_session_id_unique IF NOT EXISTS FOR (n:MemorySession) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT memory_subject_id_unique IF NOT EXISTS FOR (n:MemorySubject) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT memory_subject_ref IF NOT EXISTS FOR (n:MemorySubject) REQUIRE (n.client_id, n.external_ref) IS UNIQUE;
CREATE CONSTRAINT agent_cycle_id_unique IF NOT EXISTS FOR (n:AgentCycle) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT agent_cycle_sequence IF NOT EXISTS FOR (n:AgentCycle) REQUIRE (n.client_id, n.agent_name, n.sequence) IS UNIQUE;
CREATE CONSTRAINT feedback_event_id_unique IF NOT EXISTS FOR (n:FeedbackEvent) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT agent_performance_id_unique IF NOT EXISTS FOR (n:AgentPerformance) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT agent_performance_task IF NOT EXISTS FOR (n:AgentPerformance) REQUIRE (n.client_id, n.agent_name, n.task_type) IS UNIQUE;
CREATE CONSTRAINT access_log_id_unique IF NOT EXISTS FOR (n:AccessLogEntry) REQUIRE n.id IS UNIQUE;
CREATE INDEX memory_record_client_created IF NOT EXISTS FOR (n:MemoryRecord) ON (n.client_id, n.created_at);
CREATE INDEX memory_record_client_namespace IF NOT EXISTS FOR (n:MemoryRecord) ON (n.client_id, n.namespace);
CREATE INDEX memory_record_expires IF NOT EXISTS FOR (n:MemoryRecord) ON (n.expires_at);
CREATE INDEX memory_version_client_created IF NOT EXISTS FOR (n:MemoryVersion) ON (n.client_id, n.created_at);
CREATE INDEX memory_artifact_client_created IF NOT EXISTS FOR (n:MemoryArtifact) ON (n.client_id, n.created_at);
CREATE INDEX memory_session_client_created IF NOT EXISTS FOR (n:MemorySession) ON (n.client_id, n.created_at);
CREATE INDEX memory_subject_client_created IF NOT EXISTS FOR (n:MemorySubject) ON (n.client_id, n.created_at);
CREATE INDEX agent_cycle_client_created IF NOT EXISTS FOR (n:AgentCycle) ON (n.client_id, n.created_at);
CREATE INDEX feedback_event_client_created IF NOT EXISTS FOR (n:FeedbackEvent) ON (n.client_id, n.created_at);
CREATE INDEX agent_performance_client_created IF NOT EXISTS FOR (n:AgentPerformance) ON (n.client_id, n.created_at);
CREATE INDEX access_log_client_created IF NOT EXISTS FOR (n:AccessLogEntry) ON (n.client_id, n.created_at);
