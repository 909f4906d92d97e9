// Issue 15, seed 003: personas with immutable numbered versions (app/model/personas.py).
// A persona's name is unique per client: concurrent first creations cannot make two.
CREATE CONSTRAINT persona_id_unique IF NOT EXISTS FOR (n:Persona) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT persona_client_name IF NOT EXISTS FOR (n:Persona) REQUIRE (n.client_id, n.name) IS UNIQUE;
CREATE INDEX persona_client_created IF NOT EXISTS FOR (n:Persona) ON (n.client_id, n.created_at);
CREATE INDEX persona_updated IF NOT EXISTS FOR (n:Persona) ON (n.updated_at);
CREATE INDEX persona_index_claim IF NOT EXISTS FOR (n:Persona) ON (n.index_claim_until);
// Version numbers are unique per persona: two concurrent edits cannot both make version n.
CREATE CONSTRAINT persona_version_id_unique IF NOT EXISTS FOR (n:PersonaVersion) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT persona_version_number IF NOT EXISTS FOR (n:PersonaVersion) REQUIRE (n.persona_id, n.version) IS UNIQUE;
CREATE INDEX persona_version_client_created IF NOT EXISTS FOR (n:PersonaVersion) ON (n.client_id, n.created_at);
CREATE INDEX persona_version_persona IF NOT EXISTS FOR (n:PersonaVersion) ON (n.client_id, n.persona_id);
// Transcript retention (the sweeper): session transcripts older than the retention, all clients.
CREATE INDEX memory_artifact_kind_created IF NOT EXISTS FOR (n:MemoryArtifact) ON (n.kind, n.created_at);
