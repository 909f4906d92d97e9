// Core: clients, API keys and plans. Every statement is idempotent (IF NOT EXISTS).
CREATE CONSTRAINT client_id_unique IF NOT EXISTS FOR (n:Client) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT client_name_unique IF NOT EXISTS FOR (n:Client) REQUIRE n.name IS UNIQUE;
CREATE CONSTRAINT apikey_id_unique IF NOT EXISTS FOR (n:ApiKey) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT apikey_hash_unique IF NOT EXISTS FOR (n:ApiKey) REQUIRE n.key_hash IS UNIQUE;
CREATE CONSTRAINT plan_id_unique IF NOT EXISTS FOR (n:Plan) REQUIRE n.id IS UNIQUE;
CREATE INDEX client_client IF NOT EXISTS FOR (n:Client) ON (n.client_id);
CREATE INDEX apikey_client IF NOT EXISTS FOR (n:ApiKey) ON (n.client_id);
CREATE INDEX plan_client_created IF NOT EXISTS FOR (n:Plan) ON (n.client_id, n.created_at);
CREATE INDEX plan_client_status IF NOT EXISTS FOR (n:Plan) ON (n.client_id, n.status);
CREATE CONSTRAINT migration_version_unique IF NOT EXISTS FOR (n:SchemaMigration) REQUIRE n.version IS UNIQUE;
