// Idempotency keys are per caller (issue 11 review): one claim per (client, caller, key), where
// the caller is the role and agent acting (app/domain/idempotency.py), so that one caller never
// replays another's result. Claims made before have no caller: they expire and are purged.
DROP CONSTRAINT idempotency_key_per_client IF EXISTS;
CREATE CONSTRAINT idempotency_key_per_caller IF NOT EXISTS FOR (n:IdempotencyKey) REQUIRE (n.client_id, n.caller, n.key) IS UNIQUE;
