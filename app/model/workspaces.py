"""Agents' workspaces (seed 001): files by path whose bytes live in object storage, stored once
per client under their SHA-256 (content-addressed), every write and delete an immutable version
of the path, and snapshots: immutable manifests (path -> SHA-256) compared by their hashes."""

from __future__ import annotations

from neomodel import BooleanProperty, DateTimeProperty, IntegerProperty, StringProperty, ZeroOrOne

from app.model.facts import LabelFacts
from app.model.nodes import Record
from app.model.relationships import RelationshipFrom, RelationshipTo


class Workspace(Record):
    """One sandbox of an agent; its name is unique per agent. The counters are those of its
    live (not deleted) files, kept under the workspace's write lock."""

    facts = LabelFacts(graphql="app.api.types.workspaces", roots=("workspace", "workspaces"))

    agent_name = StringProperty(required=True, index=True)
    name = StringProperty(required=True)
    description = StringProperty()
    file_count = IntegerProperty(required=True)
    total_bytes = IntegerProperty(required=True)

    agent = RelationshipFrom("Agent", "HAS_WORKSPACE", ZeroOrOne, doc="The agent it belongs to.")
    files = RelationshipTo(
        "WorkspaceFile", "HAS_FILE", doc="Its files by path, deleted ones too (isDeleted: true)."
    )
    snapshots = RelationshipTo("WorkspaceSnapshot", "HAS_SNAPSHOT", doc="Its snapshots.")
    cycles = RelationshipFrom(
        "AgentCycle", "WORKS_IN", doc="Agent cycles whose proposals cue its files."
    )


class WorkspaceFile(Record):
    """A path of a workspace, as it is now: the current version's content properties (null
    once deleted). Its versions keep every earlier state."""

    facts = LabelFacts(graphql="app.api.types.workspaces")

    workspace_id = StringProperty(required=True, index=True)
    path = StringProperty(required=True)
    version = IntegerProperty(required=True)
    is_deleted = BooleanProperty(required=True)
    sha256 = StringProperty()
    size = IntegerProperty()
    media_type = StringProperty()
    uri = StringProperty()  # client/{client_id}/workspaces/blobs/{sha256}
    deleted_at = DateTimeProperty()

    workspace = RelationshipFrom(
        "Workspace", "HAS_FILE", ZeroOrOne, doc="The workspace it is a file of."
    )
    versions = RelationshipTo(
        "WorkspaceFileVersion", "HAS_VERSION", doc="Every version, deletions included."
    )


class WorkspaceFileVersion(Record):
    """One immutable state of a path: content written (sha256, size, media type, object) or a
    deletion (isDeleted: true, no content)."""

    facts = LabelFacts(graphql="app.api.types.workspaces")

    file_id = StringProperty(required=True, index=True)
    workspace_id = StringProperty(required=True)
    path = StringProperty(required=True)
    version = IntegerProperty(required=True)
    is_deleted = BooleanProperty(required=True)
    sha256 = StringProperty(index=True)  # the client's stored blob is found by it
    size = IntegerProperty()
    media_type = StringProperty()
    uri = StringProperty()
    author = StringProperty(required=True)

    file = RelationshipFrom(
        "WorkspaceFile", "HAS_VERSION", ZeroOrOne, doc="The file it is a version of."
    )
    produced_by = RelationshipFrom(
        "AgentCycle", "PRODUCED", doc="Agent cycles whose results produced it."
    )


class WorkspaceSnapshot(Record):
    """The live files of a workspace at one moment, as an immutable manifest (path -> SHA-256)
    in object storage under its own SHA-256, which equal manifests share."""

    facts = LabelFacts(
        graphql="app.api.types.workspaces",
        roots=("workspace_snapshot", "workspace_snapshots"),
    )

    workspace_id = StringProperty(required=True, index=True)
    label = StringProperty()
    manifest_sha256 = StringProperty(required=True)
    manifest_uri = StringProperty(required=True)
    file_count = IntegerProperty(required=True)
    total_bytes = IntegerProperty(required=True)
    author = StringProperty(required=True)

    workspace = RelationshipFrom(
        "Workspace", "HAS_SNAPSHOT", ZeroOrOne, doc="The workspace it is a snapshot of."
    )


WORKSPACES_MODEL: tuple[type[Record], ...] = (
    Workspace,
    WorkspaceFile,
    WorkspaceFileVersion,
    WorkspaceSnapshot,
)
