"""PublishPackage repository: a bundle of variants for a plan, gated by policy approvals."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.domain.assets.rules import PACKAGE_TRANSITIONS, check_publishable, check_transition
from app.domain.kernel.errors import Conflict, ValidationFailed
from app.domain.kernel.field_rules import check_aware, check_ids, check_updatable, enum_value
from app.domain.kernel.ids import check_id, new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import OwnedNode, missing
from app.graph.change_feed import note_change
from app.graph.executor import GraphExecutor, Tx
from app.graph.fragments import lock
from app.graph.values import plain
from app.model.enums import ChangeAction, PackageStatus, Platform, PublishRunStatus

MISSING_REFS = """
OPTIONAL MATCH (plan:Plan {id: $plan_id, client_id: $client_id})
RETURN plan IS NOT NULL AS plan_found,
  [id IN $variant_ids WHERE NOT EXISTS { MATCH (:AssetVariant {id: id, client_id: $client_id}) }]
    AS absent
"""
CREATE_PACKAGE = """
MATCH (plan:Plan {id: $plan_id, client_id: $client_id})
CREATE (p:PublishPackage $props)-[:FOR_PLAN]->(plan)
WITH p
CALL (p) {
  UNWIND $variant_ids AS variant_id
  MATCH (v:AssetVariant {id: variant_id, client_id: $client_id})
  CREATE (p)-[:INCLUDES]->(v)
}
RETURN p {.*} AS package
"""
PACKAGE = OwnedNode("PublishPackage", "package", what="publish package")
# The approval gate: for each included variant, the statuses of the policy-required approvals
# on it or on its asset. Variants and assets are write-locked so that no approval can be added
# to them while the package moves on.
REQUIRED_APPROVALS = f"""
MATCH (:PublishPackage {{id: $id, client_id: $client_id}})-[:INCLUDES]->(v:AssetVariant)
OPTIONAL MATCH (a:Asset {{client_id: $client_id}})-[:HAS_VARIANT]->(v)
FOREACH (n IN [x IN [v, a] WHERE x IS NOT NULL] | {lock("n")})
WITH v, [x IN [v, a] WHERE x IS NOT NULL] AS targets
UNWIND targets AS t
OPTIONAL MATCH (t)<-[:APPROVES]-(r:ApprovalRecord {{client_id: $client_id,
                                                   required_by_policy: true}})
RETURN v.id AS variant_id, collect(r.status) AS statuses
"""
SUCCEEDED_RUNS = """
MATCH (:PublishPackage {id: $id, client_id: $client_id})-[:HAS_RUN]->(r:PublishRun)
WHERE r.status = $succeeded
RETURN count(r) AS runs
"""
UPDATABLE = frozenset({"target_platforms", "scheduled_at"})
FROZEN = frozenset({PackageStatus.PUBLISHING, PackageStatus.PUBLISHED})


async def create_package(
    graph: GraphExecutor, *, principal: Principal, fields: dict[str, Any]
) -> dict[str, Any]:
    """A queued package for a plan of the caller's, including variants of the caller's."""
    principal.require_writer()
    plan_id = check_id(fields.get("plan_id") or "", field="plan_id")
    variant_ids = check_ids(fields.get("variant_ids"), field="variant_ids", minimum=1)
    values = _checked(fields, creating=True)
    now = datetime.now(UTC)
    props = values | {
        "id": new_id(),
        "client_id": principal.client_id,
        "plan_id": plan_id,
        "variant_ids": variant_ids,
        "status": PackageStatus.QUEUED.value,
        "created_at": now,
        "updated_at": now,
    }
    params = {"plan_id": plan_id, "variant_ids": variant_ids, "client_id": principal.client_id}

    async def work(tx: Tx) -> dict[str, Any]:
        refs = (await tx.run(MISSING_REFS, params))[0]
        if not refs["plan_found"]:
            raise missing("plan", plan_id)
        if refs["absent"]:
            raise missing("variant", refs["absent"][0])
        rows = await tx.run(CREATE_PACKAGE, params | {"props": props})
        note_change(principal.client_id, "PublishPackage", props["id"], ChangeAction.CREATED)
        return dict(plain(rows[0]["package"]))

    return await graph.in_transaction(work)


async def update_package(
    graph: GraphExecutor, *, principal: Principal, package_id: str, changes: dict[str, Any]
) -> dict[str, Any]:
    """Change target_platforms or scheduled_at while the package is not publishing/published."""
    principal.require_writer()
    check_updatable(changes, UPDATABLE, what="a package")
    values = _checked(changes, creating=False)
    scope = PACKAGE.scope(principal, package_id)

    async def work(tx: Tx) -> dict[str, Any]:
        current = await PACKAGE.locked(tx, scope)
        status = PackageStatus(current["status"])
        if status in FROZEN:
            raise Conflict(f"a package in status {status.value!r} cannot be changed")
        if status is PackageStatus.SCHEDULED and (current | values).get("scheduled_at") is None:
            raise ValidationFailed("a scheduled package needs scheduled_at", field="scheduled_at")
        return await PACKAGE.change(tx, scope, values)

    return await graph.in_transaction(work)


async def transition_package(
    graph: GraphExecutor, *, principal: Principal, package_id: str, target: PackageStatus
) -> dict[str, Any]:
    """Moving to publishing passes the approval gate (APPROVAL_REQUIRED); to published needs a
    succeeded publish run; to scheduled needs scheduled_at."""
    principal.require_writer()
    scope = PACKAGE.scope(principal, package_id)
    goal = enum_value(PackageStatus, target, field="status")

    async def work(tx: Tx) -> dict[str, Any]:
        current = await PACKAGE.locked(tx, scope)
        status = PackageStatus(current["status"])
        check_transition(PACKAGE_TRANSITIONS, status, goal, what="a publish package")
        if goal is PackageStatus.SCHEDULED and current.get("scheduled_at") is None:
            raise ValidationFailed("set scheduled_at before scheduling", field="scheduled_at")
        if goal is PackageStatus.PUBLISHING:
            rows = await tx.run(REQUIRED_APPROVALS, scope)
            check_publishable({row["variant_id"]: row["statuses"] for row in rows})
        if goal is PackageStatus.PUBLISHED:
            runs = await tx.run(
                SUCCEEDED_RUNS, scope | {"succeeded": PublishRunStatus.SUCCEEDED.value}
            )
            if not runs[0]["runs"]:
                raise ValidationFailed("a package is published only after a succeeded run")
        return await PACKAGE.change(tx, scope, {"status": goal.value})

    return await graph.in_transaction(work)


def _checked(fields: dict[str, Any], *, creating: bool) -> dict[str, Any]:
    """target_platforms (required on create, never empty) and scheduled_at, validated."""
    values: dict[str, Any] = {}
    if creating or "target_platforms" in fields:
        platforms = fields.get("target_platforms")
        if not isinstance(platforms, list) or not platforms:
            raise ValidationFailed("name at least one target platform", field="target_platforms")
        chosen = [enum_value(Platform, p, field="target_platforms").value for p in platforms]
        values["target_platforms"] = list(dict.fromkeys(chosen))
    if "scheduled_at" in fields:
        check_aware(fields["scheduled_at"], field="scheduled_at")
        values["scheduled_at"] = fields["scheduled_at"]
    return values
