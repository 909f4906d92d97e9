"""Asset repository: a logical creative object, optionally made from a plan node (blueprint)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.assets.rules import ASSET_TRANSITIONS
from app.domain.kernel.field_rules import (
    MAX_TITLE,
    check_text,
    check_updatable,
    enum_value,
    stored,
)
from app.domain.kernel.ids import check_id, new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import OwnedNode, check_artifact_ref, missing
from app.graph.change_feed import Changed
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import AssetStatus, AssetType, ChangeAction, CreatedBy

# Without a blueprint id the OPTIONAL MATCH finds nothing and the asset stands alone; with one,
# no row survives the WITH unless the plan node is the caller's, so nothing is created.
CREATE_ASSET = """
OPTIONAL MATCH (n:PlanNode {id: $blueprint_id, client_id: $client_id})
WITH n WHERE $blueprint_id IS NULL OR n IS NOT NULL
CREATE (a:Asset $props)
FOREACH (_ IN CASE WHEN n IS NULL THEN [] ELSE [1] END | CREATE (a)-[:FROM_BLUEPRINT]->(n))
RETURN a {.*} AS asset
"""
ASSET = OwnedNode("Asset", "asset", what="asset")
UPDATABLE = frozenset({"title", "summary", "primary_artifact_uri"})


async def create_asset(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    fields: dict[str, Any],
) -> dict[str, Any]:
    """A draft asset; `source_blueprint_instance_id` must name a plan node of the caller's."""
    principal.require_writer()
    asset_type = enum_value(AssetType, fields.get("asset_type"), field="asset_type")
    created_by = enum_value(CreatedBy, fields.get("created_by"), field="created_by")
    blueprint_id = fields.get("source_blueprint_instance_id")
    if blueprint_id is not None:
        blueprint_id = check_id(blueprint_id, field="source_blueprint_instance_id")
    values = await _checked_fields(artifacts, principal, fields, creating=True)
    now = datetime.now(UTC)
    props = values | {
        "id": new_id(),
        "client_id": principal.client_id,
        "asset_type": asset_type.value,
        "created_by": created_by.value,
        "source_blueprint_instance_id": blueprint_id,
        "status": AssetStatus.DRAFT.value,
        "created_at": now,
        "updated_at": now,
    }
    params = {"props": props, "blueprint_id": blueprint_id, "client_id": principal.client_id}
    rows = await graph.write(CREATE_ASSET, params, changed=assets_created)
    if not rows:
        raise missing("plan node", str(blueprint_id))
    return dict(plain(rows[0]["asset"]))


def assets_created(rows: list[dict[str, Any]]) -> list[Changed]:
    """The asset CREATE_ASSET made (none when the blueprint is not the caller's)."""
    return [
        Changed(row["asset"]["client_id"], "Asset", row["asset"]["id"], ChangeAction.CREATED)
        for row in rows
    ]


async def update_asset(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    asset_id: str,
    changes: dict[str, Any],
) -> dict[str, Any]:
    """Change title, summary or primary_artifact_uri (status moves by transition only)."""
    principal.require_writer()
    check_updatable(changes, UPDATABLE, what="an asset")
    values = await _checked_fields(artifacts, principal, changes, creating=False)
    scope = ASSET.scope(principal, asset_id)

    async def work(tx: Tx) -> dict[str, Any]:
        return await ASSET.change(tx, scope, values)

    return await graph.in_transaction(work)


async def transition_asset(
    graph: GraphExecutor, *, principal: Principal, asset_id: str, target: AssetStatus
) -> dict[str, Any]:
    return await ASSET.transition(
        graph, principal, asset_id, target, ASSET_TRANSITIONS, what="an asset"
    )


async def _checked_fields(
    artifacts: ArtifactStore, principal: Principal, fields: dict[str, Any], *, creating: bool
) -> dict[str, Any]:
    """The writable text fields, validated; a primary artifact must exist under the client."""
    check_text(fields, "title", limit=MAX_TITLE, required=creating or "title" in fields)
    check_text(fields, "summary")
    values = stored({key: fields[key] for key in UPDATABLE if key in fields})
    if values.get("primary_artifact_uri") is not None:
        values["primary_artifact_uri"] = await check_artifact_ref(
            artifacts,
            principal=principal,
            uri=values["primary_artifact_uri"],
            field="primary_artifact_uri",
        )
    return values
