// Performance metrics rolled up per asset variant (seed 000, 6.3): the metrics that MEASURE the
// variant. Label: the asset's title with the variant's platform and format.
// Neo4j Browser: :param client_id => '<client uuid>'; :param from => datetime('2026-02-01T00:00:00Z');
// :param to => datetime('2026-03-01T00:00:00Z'); :param metric_types => null (or ['impressions']);
// :param bucket => null (or 'day', 'week'); :param first => 100
// A metric is in the window when from <= window_start < to; buckets truncate window_start (UTC).
// Rows: per group key, bucket and metric type, ordered by bucket, metric type, sum descending.
CYPHER 25
MATCH (m:PerformanceMetric)
WHERE m.client_id = $client_id AND m.window_start >= $from AND m.window_start < $to
  AND ($metric_types IS NULL OR m.metric_type IN $metric_types)
MATCH (m)-[:MEASURES]->(v:AssetVariant {client_id: $client_id})
WITH v, m.metric_type AS metric_type, m.value AS value,
     CASE $bucket
       WHEN 'day' THEN datetime.truncate('day', m.window_start)
       WHEN 'week' THEN datetime.truncate('week', m.window_start)
     END AS bucket_start
WITH v, metric_type, bucket_start,
     sum(value) AS total, avg(value) AS mean, max(value) AS peak, count(*) AS metrics
ORDER BY bucket_start, metric_type, total DESC, v.id
LIMIT $first
OPTIONAL MATCH (a:Asset {client_id: $client_id})-[:HAS_VARIANT]->(v)
RETURN v.id AS key, coalesce(a.title + ' ', '') + '(' + v.platform + ' ' + v.format + ')' AS label,
       bucket_start, metric_type, total AS sum, mean AS avg, peak AS max, metrics AS count
