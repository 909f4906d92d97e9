// Idempotency keys (issue 11): one claim per (client, key), so that concurrent retries of a
// create wait for the first one's transaction (MERGE on this constraint) and then replay its
// result; expired claims are found by expiry for the background purge.
CREATE CONSTRAINT idempotency_key_per_client IF NOT EXISTS FOR (n:IdempotencyKey) REQUIRE (n.client_id, n.key) IS UNIQUE;
CREATE INDEX idempotency_key_expiry IF NOT EXISTS FOR (n:IdempotencyKey) ON (n.expires_at);
