"""AssetVariant repository: concrete versions of an asset, de-duplicated by checksum per client."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from neo4j.exceptions import ConstraintError

from app.artifacts.staged import StagedUploads, staged_uploads
from app.artifacts.store import ArtifactStore
from app.domain.assets.rules import VARIANT_TRANSITIONS
from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.field_rules import (
    MAX_CAPTION,
    check_checksum,
    check_dimensions,
    check_duration,
    check_text,
    check_updatable,
    check_upload,
    decoded,
    enum_value,
)
from app.domain.kernel.ids import check_id, new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import OwnedNode, check_artifact_ref, missing
from app.graph.change_feed import Changed
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import ChangeAction, Platform, VariantFormat, VariantStatus

JSON_FIELDS = ("dimensions",)
FIND_TARGET = """
MATCH (a:Asset {id: $asset_id, client_id: $client_id})
OPTIONAL MATCH (v:AssetVariant {client_id: $client_id, checksum: $checksum})
RETURN a.id AS asset_id, v {.*} AS existing
"""
CREATE_VARIANT = """
MATCH (a:Asset {id: $asset_id, client_id: $client_id})
CREATE (a)-[:HAS_VARIANT]->(v:AssetVariant $props)
RETURN v {.*} AS variant
"""
BY_CHECKSUM = """
MATCH (v:AssetVariant {client_id: $client_id, checksum: $checksum})
RETURN v {.*} AS variant
"""
VARIANT = OwnedNode("AssetVariant", "variant", what="variant", parent=("asset_id",))
UPDATABLE = frozenset({"caption_text", "dimensions", "duration_seconds"})


@dataclass(frozen=True)
class VariantWrite:
    variant: dict[str, Any]
    deduplicated: bool


async def create_variant(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    asset_id: str,
    fields: dict[str, Any],
    media: bytes | None = None,
    content_type: str = "application/octet-stream",
) -> VariantWrite:
    """A pending variant under the caller's asset. Media bytes go to object storage before the
    node is written; a checksum the client already has returns that variant, flagged."""
    principal.require_writer()
    scope = {"asset_id": check_id(asset_id, field="asset_id"), "client_id": principal.client_id}
    values = _checked(fields) | {
        "platform": enum_value(Platform, fields.get("platform"), field="platform").value,
        "format": enum_value(VariantFormat, fields.get("format"), field="format").value,
    }
    if media is not None:
        check_upload(media, content_type, field="media")
        if fields.get("artifact_uri") is not None:
            raise ValidationFailed("give either media bytes or artifact_uri, not both")
    checksum = fields.get("checksum")
    if checksum is None and media is not None:
        checksum = hashlib.sha256(media).hexdigest()
    params = scope | {"checksum": check_checksum(checksum)}
    rows = await graph.read(FIND_TARGET, params)
    if not rows:
        raise missing("asset", scope["asset_id"])
    if rows[0]["existing"] is not None:
        return VariantWrite(decoded(plain(rows[0]["existing"]), JSON_FIELDS), deduplicated=True)
    variant_id = new_id()
    uri = fields.get("artifact_uri")
    async with staged_uploads(artifacts, principal) as uploads:
        if media is not None:
            parts = ("variants", variant_id, "media")
            uri = (await uploads.put(parts, media, content_type=content_type)).uri
        elif uri is not None:
            uri = await check_artifact_ref(
                artifacts, principal=principal, uri=uri, field="artifact_uri"
            )
        now = datetime.now(UTC)
        props = values | {
            "id": variant_id,
            "client_id": principal.client_id,
            "asset_id": scope["asset_id"],
            "checksum": params["checksum"],
            "artifact_uri": uri,
            "status": VariantStatus.PENDING.value,
            "created_at": now,
            "updated_at": now,
        }
        return await _write_variant(graph, uploads, scope | {"props": props}, params)


async def _write_variant(
    graph: GraphExecutor,
    uploads: StagedUploads,
    create: dict[str, Any],
    by_checksum: dict[str, Any],
) -> VariantWrite:
    try:
        created = await graph.write(CREATE_VARIANT, create, changed=variants_created)
    except ConstraintError:
        # Another request stored the same checksum between our check and our write: its
        # variant is the answer, and our upload is not needed.
        again = await graph.read(BY_CHECKSUM, by_checksum)
        if not again:
            raise
        await uploads.discard()
        return VariantWrite(decoded(plain(again[0]["variant"]), JSON_FIELDS), deduplicated=True)
    if not created:
        raise missing("asset", create["asset_id"])
    return VariantWrite(decoded(plain(created[0]["variant"]), JSON_FIELDS), deduplicated=False)


def variants_created(rows: list[dict[str, Any]]) -> list[Changed]:
    """The variants CREATE_VARIANT made, each under its asset."""
    return [
        Changed(
            v["client_id"], "AssetVariant", v["id"], ChangeAction.CREATED, parent_id=v["asset_id"]
        )
        for v in (row["variant"] for row in rows)
    ]


async def update_variant(
    graph: GraphExecutor, *, principal: Principal, variant_id: str, changes: dict[str, Any]
) -> dict[str, Any]:
    """Change caption_text, dimensions or duration_seconds; media and checksum are fixed."""
    principal.require_writer()
    check_updatable(changes, UPDATABLE, what="a variant")
    scope = VARIANT.scope(principal, variant_id)
    values = _checked(changes)

    async def work(tx: Tx) -> dict[str, Any]:
        return await VARIANT.change(tx, scope, values)

    return decoded(await graph.in_transaction(work), JSON_FIELDS)


async def transition_variant(
    graph: GraphExecutor, *, principal: Principal, variant_id: str, target: VariantStatus
) -> dict[str, Any]:
    moved = await VARIANT.transition(
        graph, principal, variant_id, target, VARIANT_TRANSITIONS, what="a variant"
    )
    return decoded(moved, JSON_FIELDS)


def _checked(fields: dict[str, Any]) -> dict[str, Any]:
    """The updatable fields present in `fields`, validated and in their stored shape."""
    check_text(fields, "caption_text", limit=MAX_CAPTION)
    values: dict[str, Any] = {}
    if "caption_text" in fields:
        values["caption_text"] = fields["caption_text"]
    if "dimensions" in fields:
        values["dimensions"] = check_dimensions(fields["dimensions"])
    if "duration_seconds" in fields:
        values["duration_seconds"] = check_duration(fields["duration_seconds"])
    return values
