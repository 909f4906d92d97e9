"""What a cycle names besides memory records (seed 001): the workspace its proposal cues paths
of (`workspace_cues`, files it means to read or write, existing or not: (cycle)-[:WORKS_IN]->
(Workspace)), and what its result produced: workspace files, as the version each holds at
completion ((cycle)-[:PRODUCED]->(WorkspaceFileVersion), so the link keeps naming those bytes
after the file changes), and artifacts ((cycle)-[:PRODUCED]->(MemoryArtifact)). Each is the
caller's or NOT_FOUND; all written in the cycle's own transaction."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.field_rules import check_ids
from app.domain.kernel.ids import check_id
from app.domain.kernel.records import missing
from app.domain.kernel.workspace_paths import check_cues
from app.graph.executor import Tx

CUE_WORKSPACE = """
MATCH (c:AgentCycle {id: $id, client_id: $client_id})
MATCH (w:Workspace {id: $workspace_id, client_id: $client_id})
MERGE (c)-[:WORKS_IN]->(w)
RETURN w.id AS id
"""
MISSING_OUTPUTS = """
RETURN [id IN $file_ids WHERE NOT EXISTS {
          MATCH (f:WorkspaceFile {id: id, client_id: $client_id})
          WHERE NOT f.is_deleted }] AS files,
       [id IN $artifact_ids WHERE NOT EXISTS {
          MATCH (:MemoryArtifact {id: id, client_id: $client_id}) }] AS artifacts
"""
LINK_OUTPUTS = """
MATCH (c:AgentCycle {id: $id, client_id: $client_id})
CALL (c) {
  UNWIND $file_ids AS file_id
  MATCH (f:WorkspaceFile {id: file_id, client_id: $client_id})-[:HAS_VERSION]->
        (v:WorkspaceFileVersion)
  WHERE v.version = f.version
  MERGE (c)-[:PRODUCED]->(v)
}
CALL (c) {
  UNWIND $artifact_ids AS artifact_id
  MATCH (a:MemoryArtifact {id: artifact_id, client_id: $client_id})
  MERGE (c)-[:PRODUCED]->(a)
}
RETURN c.id AS id
"""


@dataclass(frozen=True)
class Cues:
    workspace_id: str | None
    paths: list[str]


@dataclass(frozen=True)
class Outputs:
    file_ids: list[str]
    artifact_ids: list[str]


def check_workspace_cues(workspace_id: str | None, paths: Any) -> Cues:
    """Cues are paths of one workspace: given paths need the workspace."""
    checked = check_cues(list(paths or []))
    if workspace_id is None:
        if checked:
            raise ValidationFailed(
                "workspaceCues are paths of a workspace: give its workspaceId", field="workspace_id"
            )
        return Cues(None, [])
    return Cues(check_id(workspace_id, field="workspace_id"), checked)


def check_outputs(file_ids: Any, artifact_ids: Any) -> Outputs:
    return Outputs(
        check_ids(list(file_ids or []), field="workspace_file_ids"),
        check_ids(list(artifact_ids or []), field="artifact_ids"),
    )


async def cue_workspace(tx: Tx, scope: dict[str, Any], cues: Cues) -> None:
    """(cycle `scope["id"]`)-[:WORKS_IN]->(the cues' workspace)."""
    if cues.workspace_id is None:
        return
    rows = await tx.run(CUE_WORKSPACE, scope | {"workspace_id": cues.workspace_id})
    if not rows:
        raise missing("workspace", cues.workspace_id)


async def link_outputs(tx: Tx, scope: dict[str, Any], outputs: Outputs) -> None:
    """(cycle `scope["id"]`)-[:PRODUCED]->(each file's current version, each artifact)."""
    if not outputs.file_ids and not outputs.artifact_ids:
        return
    params = scope | {"file_ids": outputs.file_ids, "artifact_ids": outputs.artifact_ids}
    absent = (await tx.run(MISSING_OUTPUTS, params))[0]
    if absent["files"]:
        raise missing("live workspace file", absent["files"][0])
    if absent["artifacts"]:
        raise missing("memory artifact", absent["artifacts"][0])
    await tx.run(LINK_OUTPUTS, params)
