// Issue 17: the change feed (app/graph/change_feed.py). One ChangeFeed node per client holds its
// last position; concurrent first writers MERGE one node. A position is given once per client.
CREATE CONSTRAINT change_feed_client_unique IF NOT EXISTS FOR (f:ChangeFeed) REQUIRE f.client_id IS UNIQUE;
CREATE CONSTRAINT change_position_unique IF NOT EXISTS FOR (c:Change) REQUIRE (c.client_id, c.position) IS UNIQUE;
CREATE INDEX change_client_at IF NOT EXISTS FOR (c:Change) ON (c.client_id, c.at);
// Persisted queries (app/api/edge/persisted_queries.py): a document per client and SHA-256.
CREATE CONSTRAINT persisted_query_unique IF NOT EXISTS FOR (p:PersistedQuery) REQUIRE (p.client_id, p.hash) IS UNIQUE;
