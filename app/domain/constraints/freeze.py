"""What an approval freezes: one version of each kind of document, the current one unless the
approver names another of the client's versions; never a version that does not exist."""

from __future__ import annotations

from typing import Any

from app.domain.kernel.errors import ValidationFailed
from app.graph.executor import Tx
from app.model.enums import ConstraintKind

# The ConstraintsSnapshot field holding each kind's frozen version id (seed 000, 3.3).
SNAPSHOT_FIELD: dict[ConstraintKind, str] = {
    ConstraintKind.BRANDKIT: "brandkit_version_id",
    ConstraintKind.KNOWLEDGE_BASE: "kb_version_id",
    ConstraintKind.AUTONOMY_POLICIES: "policies_version_id",
    ConstraintKind.PROVIDER_CONFIG: "provider_config_version_id",
    ConstraintKind.BLUEPRINT_SET: "blueprint_set_version_id",
}
VERSIONS_TO_FREEZE = """
UNWIND $kinds AS kind
OPTIONAL MATCH (d:ConstraintDocument {client_id: $client_id, kind: kind})
WITH kind, coalesce($given[kind], d.current_version_id) AS wanted
OPTIONAL MATCH (v:ConstraintVersion {id: wanted, client_id: $client_id})
RETURN kind, v.id AS id, v.kind AS version_kind
"""
FREEZE = """
CALL (s) {
  UNWIND $frozen AS version_id
  MATCH (v:ConstraintVersion {id: version_id, client_id: $client_id})
  CREATE (s)-[:FREEZES]->(v)
}
"""


async def versions_to_freeze(tx: Tx, client_id: str, given: dict[str, Any]) -> dict[str, str]:
    """Snapshot field -> version id for every kind: `given` (snapshot field -> version id) where
    named, else the kind's current version."""
    named = {kind.value: given.get(field) for kind, field in SNAPSHOT_FIELD.items()}
    params = {"kinds": list(named), "given": named, "client_id": client_id}
    frozen: dict[str, str] = {}
    for row in await tx.run(VERSIONS_TO_FREEZE, params):
        kind = ConstraintKind(row["kind"])
        field = SNAPSHOT_FIELD[kind]
        if row["id"] is None or row["version_kind"] != kind.value:
            raise _unfrozen(kind, field, named[kind.value])
        frozen[field] = row["id"]
    return frozen


def _unfrozen(kind: ConstraintKind, field: str, named: str | None) -> ValidationFailed:
    if named is not None:
        return ValidationFailed(
            f"{field} {named!r} is no version of this client's {kind.value} document",
            field=field,
        )
    return ValidationFailed(
        f"approval freezes the current version of each constraint document, and this client "
        f"has no {kind.value} document: create it (createConstraintDocument) first",
        field="constraints",
    )
