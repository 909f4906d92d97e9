// Properties the model declares index=True that no migration indexed until issue 12 found them
// (a test now holds every declared index to a migration). Each is looked up by equality within
// one client: episodes by agent, an episode's children, a record's versions, an owner's
// artifacts. (ThreadSummary.thread_id and AgentCycle.agent_name lead composite constraints.)
CREATE INDEX agent_episode_agent IF NOT EXISTS FOR (n:AgentEpisode) ON (n.client_id, n.agent_name);
CREATE INDEX agent_episode_parent IF NOT EXISTS FOR (n:AgentEpisode) ON (n.client_id, n.parent_episode_id);
CREATE INDEX memory_version_record IF NOT EXISTS FOR (n:MemoryVersion) ON (n.client_id, n.record_id);
CREATE INDEX memory_artifact_owner IF NOT EXISTS FOR (n:MemoryArtifact) ON (n.client_id, n.owner_id);
