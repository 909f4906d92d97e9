// MemoryLinks (seed 000, 8.3) are found by link_id (unlinkRecords): one relationship index per
// MemoryRelation type.
CREATE INDEX supports_link_id IF NOT EXISTS FOR ()-[r:SUPPORTS]-() ON (r.link_id);
CREATE INDEX contradicts_link_id IF NOT EXISTS FOR ()-[r:CONTRADICTS]-() ON (r.link_id);
CREATE INDEX caused_link_id IF NOT EXISTS FOR ()-[r:CAUSED]-() ON (r.link_id);
CREATE INDEX derived_from_link_id IF NOT EXISTS FOR ()-[r:DERIVED_FROM]-() ON (r.link_id);
CREATE INDEX validates_link_id IF NOT EXISTS FOR ()-[r:VALIDATES]-() ON (r.link_id);
// Active lessons of a client (activeLessons, the retirement sweep) skip the retired ones.
CREATE INDEX lesson_client_retired IF NOT EXISTS FOR (n:Lesson) ON (n.client_id, n.retired);
// Client snapshots by window.
CREATE INDEX client_snapshot_client_window IF NOT EXISTS FOR (n:ClientSnapshot) ON (n.client_id, n.time_window_start);
