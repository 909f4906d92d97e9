// getContext's workspace section (seed 002): a client's highest-priority records of one kind,
// read in index order and stopped at the limit instead of sorting all of the client's records
// (a client of 100k records took 1-2 s per getContext before this index).
CREATE INDEX memory_record_workspace_order IF NOT EXISTS FOR (n:MemoryRecord) ON (n.client_id, n.kind, n.priority, n.updated_at, n.id);
