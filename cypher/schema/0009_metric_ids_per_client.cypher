// Metric ids are chosen by clients, so they are unique per client, not globally: with a global
// constraint a client could learn that another client used an id (isolation).
DROP CONSTRAINT metric_id_unique IF EXISTS;
CREATE CONSTRAINT metric_id_per_client IF NOT EXISTS FOR (n:PerformanceMetric) REQUIRE (n.client_id, n.id) IS UNIQUE;
