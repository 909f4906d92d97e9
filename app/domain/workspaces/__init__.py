"""Workspaces (seed 001): an agent's named sandboxes of files, each file's bytes stored once per
client in object storage under their SHA-256, every write and delete of a path an immutable
version, snapshots as immutable manifests (path -> SHA-256) and their diff by hashes."""

from app.domain.workspaces.blobs import file_bytes, file_url
from app.domain.workspaces.files import delete_file, write_file
from app.domain.workspaces.manifest import ManifestDiff, PathChange
from app.domain.workspaces.reads import list_files, read_file
from app.domain.workspaces.repository import create_workspace
from app.domain.workspaces.snapshot_reads import snapshot_file, snapshot_manifest
from app.domain.workspaces.snapshots import WorkspaceDiff, diff_snapshots, snapshot_workspace

__all__ = [
    "ManifestDiff",
    "PathChange",
    "WorkspaceDiff",
    "create_workspace",
    "delete_file",
    "diff_snapshots",
    "file_bytes",
    "file_url",
    "list_files",
    "read_file",
    "snapshot_file",
    "snapshot_manifest",
    "snapshot_workspace",
    "write_file",
]
