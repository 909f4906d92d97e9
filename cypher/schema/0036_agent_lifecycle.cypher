// Issue 15, seed 001: an agent's directives and config overrides as numbered versions
// (app/model/agent_config.py). Numbers are unique per agent: two concurrent edits cannot both
// make version n.
CREATE CONSTRAINT agent_config_version_id_unique IF NOT EXISTS FOR (n:AgentConfigVersion) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT agent_config_version_number IF NOT EXISTS FOR (n:AgentConfigVersion) REQUIRE (n.client_id, n.agent_name, n.version) IS UNIQUE;
CREATE INDEX agent_config_version_client_created IF NOT EXISTS FOR (n:AgentConfigVersion) ON (n.client_id, n.created_at);
// Agent -> MemoryRecord became a relationship (REMEMBERED, written by every memory write since):
// records written before it are linked by their `agent` namespace part, within their client,
// the agent created where it was only a name (as a write now creates it). Records already
// linked are left alone, so running this again changes nothing.
MATCH (r:MemoryRecord)
WHERE r.agent IS NOT NULL AND NOT EXISTS { (r)<-[:REMEMBERED]-(:Agent) }
MERGE (a:Agent {client_id: r.client_id, name: r.agent})
ON CREATE SET a.id = randomUUID(), a.created_at = datetime(), a.updated_at = datetime()
CREATE (a)-[:REMEMBERED]->(r);
