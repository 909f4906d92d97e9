"""ApprovalRecord repository: a human approval gate on one asset or one variant.

Anyone who writes may ask for an approval; only reviewers and admins decide it, once.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.artifacts.staged import staged_uploads
from app.artifacts.store import ArtifactStore
from app.domain.assets.rules import APPROVAL_TRANSITIONS, check_transition
from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.field_rules import check_text, check_upload, enum_value
from app.domain.kernel.ids import check_id, new_id
from app.domain.kernel.principal import REVIEWER_ROLES, Principal
from app.domain.kernel.records import OwnedNode, missing
from app.graph.change_feed import Changed
from app.graph.executor import GraphExecutor, Tx
from app.graph.fragments import own
from app.graph.values import plain
from app.model.enums import ApprovalStatus, ChangeAction


def _target_queries(label: str) -> tuple[str, str]:
    """(existence check, create) of an approval of the caller's node of that label."""
    target = f"MATCH {own('t', label)}\n"
    create = "CREATE (r:ApprovalRecord $props)-[:APPROVES]->(t)\nRETURN r {.*} AS approval"
    return target + "RETURN t.id AS target", target + create


# kind -> (existence check, create), so the label never comes from input.
TARGETS = {"asset": _target_queries("Asset"), "variant": _target_queries("AssetVariant")}
APPROVAL = OwnedNode(
    "ApprovalRecord", "approval", what="approval", parent=("variant_id", "asset_id")
)


async def create_approval(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    fields: dict[str, Any],
    evidence: bytes | None = None,
    content_type: str = "application/octet-stream",
) -> dict[str, Any]:
    """A pending approval for exactly one of `asset_id` / `variant_id` (the caller's)."""
    principal.require_writer()
    targets = {k: fields.get(f"{k}_id") for k in TARGETS if fields.get(f"{k}_id") is not None}
    if len(targets) != 1:
        raise ValidationFailed("give exactly one of asset_id and variant_id", field="asset_id")
    ((kind, raw_id),) = targets.items()
    target_id = check_id(str(raw_id), field=f"{kind}_id")
    required = fields.get("required_by_policy")
    if not isinstance(required, bool):
        raise ValidationFailed("required_by_policy must be true or false")
    check_text(fields, "notes")
    find, create = TARGETS[kind]
    scope = {"id": target_id, "client_id": principal.client_id}
    approval_id = new_id()
    evidence_uri = None
    async with staged_uploads(artifacts, principal) as uploads:
        if evidence is not None:
            check_upload(evidence, content_type, field="evidence")
            if not await graph.read(find, scope):
                raise missing(kind, target_id)
            parts = ("approvals", approval_id, "evidence", new_id())
            evidence_uri = (await uploads.put(parts, evidence, content_type=content_type)).uri
        now = datetime.now(UTC)
        props = {
            "id": approval_id,
            "client_id": principal.client_id,
            "asset_id": target_id if kind == "asset" else None,
            "variant_id": target_id if kind == "variant" else None,
            "required_by_policy": required,
            "status": ApprovalStatus.PENDING.value,
            "notes": fields.get("notes"),
            "evidence_uri": evidence_uri,
            "created_at": now,
            "updated_at": now,
        }
        created = Changed(
            principal.client_id,
            "ApprovalRecord",
            approval_id,
            ChangeAction.CREATED,
            parent_id=target_id,
        )
        rows = await graph.write(
            create, scope | {"props": props}, changed=lambda rows: [created] if rows else []
        )
        if not rows:
            raise missing(kind, target_id)
        return dict(plain(rows[0]["approval"]))


async def decide_approval(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    approval_id: str,
    decision: ApprovalStatus,
    notes: str | None = None,
    evidence: bytes | None = None,
    content_type: str = "application/octet-stream",
) -> dict[str, Any]:
    """Approve or reject a pending approval (reviewers and admins only); decisions are final."""
    principal.require(*REVIEWER_ROLES)
    goal = enum_value(ApprovalStatus, decision, field="status")
    check_text({"notes": notes}, "notes")
    scope = APPROVAL.scope(principal, approval_id)
    changes: dict[str, Any] = {"status": goal.value, "reviewer_user_id": principal.actor}
    if notes is not None:
        changes["notes"] = notes

    async def work(tx: Tx) -> dict[str, Any]:
        current = await APPROVAL.locked(tx, scope)
        status = ApprovalStatus(current["status"])
        check_transition(APPROVAL_TRANSITIONS, status, goal, what="an approval")
        return await APPROVAL.change(tx, scope, changes)

    async with staged_uploads(artifacts, principal) as uploads:
        if evidence is not None:
            check_upload(evidence, content_type, field="evidence")
            current = await APPROVAL.read(graph, scope)
            check_transition(
                APPROVAL_TRANSITIONS, ApprovalStatus(current["status"]), goal, what="an approval"
            )
            parts = ("approvals", scope["id"], "evidence", new_id())
            stored = await uploads.put(parts, evidence, content_type=content_type)
            changes["evidence_uri"] = stored.uri
        return await graph.in_transaction(work)
