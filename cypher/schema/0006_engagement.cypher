// Engagement events and performance metrics (seed 000, 6): an external_ref is recorded once per
// client (recordEngagementEvent is idempotent by it; events without one are not constrained), and
// the ids an event or metric links to are indexed for lookups and `where` filters.
CREATE CONSTRAINT engagement_external_ref IF NOT EXISTS FOR (n:EngagementEvent) REQUIRE (n.client_id, n.external_ref) IS UNIQUE;
CREATE INDEX engagement_asset IF NOT EXISTS FOR (n:EngagementEvent) ON (n.linked_asset_id);
CREATE INDEX engagement_variant IF NOT EXISTS FOR (n:EngagementEvent) ON (n.variant_id);
CREATE INDEX engagement_run IF NOT EXISTS FOR (n:EngagementEvent) ON (n.publish_run_id);
CREATE INDEX engagement_thread IF NOT EXISTS FOR (n:EngagementEvent) ON (n.thread_id);
CREATE INDEX metric_asset IF NOT EXISTS FOR (n:PerformanceMetric) ON (n.asset_id);
CREATE INDEX metric_variant IF NOT EXISTS FOR (n:PerformanceMetric) ON (n.variant_id);
CREATE INDEX metric_plan IF NOT EXISTS FOR (n:PerformanceMetric) ON (n.plan_id);
