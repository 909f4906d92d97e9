// Issue 14: client snapshots on a schedule (seed 000, 8.2). A weekly or monthly snapshot is
// written once per client and window: its window_key ("<period>/<window start>") is unique per
// client, so writers that race MERGE one node (app/domain/lessons/scheduled.py). Custom windows
// (generateClientSnapshot) carry no window_key: the same window may be asked for again.
CREATE CONSTRAINT client_snapshot_window_key IF NOT EXISTS FOR (n:ClientSnapshot) REQUIRE (n.client_id, n.window_key) IS UNIQUE;
// Snapshots written before periods existed were all custom windows.
MATCH (n:ClientSnapshot) WHERE n.period IS NULL SET n.period = 'custom';
