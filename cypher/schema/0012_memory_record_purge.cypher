// Memory records (issue 6): purges check whether content objects are still referenced, and
// the access log is read by operation and target.
CREATE INDEX memory_record_content_uri IF NOT EXISTS FOR (n:MemoryRecord) ON (n.content_uri);
CREATE INDEX memory_version_content_uri IF NOT EXISTS FOR (n:MemoryVersion) ON (n.content_uri);
CREATE INDEX memory_artifact_uri IF NOT EXISTS FOR (n:MemoryArtifact) ON (n.uri);
CREATE INDEX access_log_client_target IF NOT EXISTS FOR (n:AccessLogEntry) ON (n.client_id, n.target_id);
