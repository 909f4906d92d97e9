// Priority eviction (seed 004): a client's records over capacity are purged lowest priority,
// then oldest, first; this order, read from the index and stopped at the batch, spares sorting
// every record of a large client. The importers find what they wrote by the existing unique
// keys (record (client_id, namespace, key), session and subject (client_id, external_ref)).
CREATE INDEX memory_record_eviction_order IF NOT EXISTS FOR (n:MemoryRecord) ON (n.client_id, n.priority, n.created_at, n.id);
