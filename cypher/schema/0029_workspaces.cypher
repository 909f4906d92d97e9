// Issue 15: agents' workspaces, their files, file versions and snapshots (app/model/workspaces.py).
// A workspace name is unique per agent; a path is unique per workspace (concurrent first writes
// of a path make one file); a file's version numbers are unique.
CREATE CONSTRAINT workspace_id_unique IF NOT EXISTS FOR (n:Workspace) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT workspace_agent_name IF NOT EXISTS FOR (n:Workspace) REQUIRE (n.client_id, n.agent_name, n.name) IS UNIQUE;
CREATE INDEX workspace_client_created IF NOT EXISTS FOR (n:Workspace) ON (n.client_id, n.created_at);
CREATE CONSTRAINT workspace_file_id_unique IF NOT EXISTS FOR (n:WorkspaceFile) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT workspace_file_path IF NOT EXISTS FOR (n:WorkspaceFile) REQUIRE (n.client_id, n.workspace_id, n.path) IS UNIQUE;
CREATE INDEX workspace_file_client_created IF NOT EXISTS FOR (n:WorkspaceFile) ON (n.client_id, n.created_at);
CREATE CONSTRAINT workspace_file_version_id_unique IF NOT EXISTS FOR (n:WorkspaceFileVersion) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT workspace_file_version_number IF NOT EXISTS FOR (n:WorkspaceFileVersion) REQUIRE (n.file_id, n.version) IS UNIQUE;
CREATE INDEX workspace_file_version_client_created IF NOT EXISTS FOR (n:WorkspaceFileVersion) ON (n.client_id, n.created_at);
// A write finds the client's blob of the same bytes by its hash (stored once per client).
CREATE INDEX workspace_file_version_sha256 IF NOT EXISTS FOR (n:WorkspaceFileVersion) ON (n.client_id, n.sha256);
CREATE CONSTRAINT workspace_snapshot_id_unique IF NOT EXISTS FOR (n:WorkspaceSnapshot) REQUIRE n.id IS UNIQUE;
CREATE INDEX workspace_snapshot_client_created IF NOT EXISTS FOR (n:WorkspaceSnapshot) ON (n.client_id, n.created_at);
CREATE INDEX workspace_snapshot_workspace IF NOT EXISTS FOR (n:WorkspaceSnapshot) ON (n.client_id, n.workspace_id);
