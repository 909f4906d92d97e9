"""Plan repository: every function takes the principal and scopes its Cypher by client_id."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.domain.constraints import versions_to_freeze
from app.domain.kernel.field_rules import stored
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import OwnedNode
from app.domain.plans.approval import (
    APPROVE_PLAN,
    check_approval,
    check_ref_editable,
    snapshot_props,
)
from app.domain.plans.rules import check_plan_fields, check_time_window, check_transition
from app.graph.change_feed import Changed, note_change
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import ChangeAction, PlanStatus

CREATE_PLAN = """
CREATE (p:Plan $props)
RETURN p {.*} AS plan
"""
PLAN = OwnedNode("Plan", "plan", what="plan")


async def create_plan(
    graph: GraphExecutor, *, principal: Principal, fields: dict[str, Any]
) -> dict[str, Any]:
    principal.require_writer()
    props = new_plan_props(principal, fields)
    created = Changed(principal.client_id, "Plan", props["id"], ChangeAction.CREATED)
    rows = await graph.write(CREATE_PLAN, {"props": props}, changed=[created])
    return dict(plain(rows[0]["plan"]))


def new_plan_props(principal: Principal, fields: dict[str, Any]) -> dict[str, Any]:
    """Validate a new plan's fields; returns its properties as stored, in status draft."""
    check_plan_fields(fields)
    now = datetime.now(UTC)
    return stored(fields) | {
        "id": new_id(),
        "client_id": principal.client_id,
        "status": PlanStatus.DRAFT.value,
        "created_at": now,
        "updated_at": now,
    }


async def update_plan(
    graph: GraphExecutor, *, principal: Principal, plan_id: str, changes: dict[str, Any]
) -> dict[str, Any]:
    principal.require_writer()
    check_plan_fields(changes)
    scope = PLAN.scope(principal, plan_id)

    def checked(current: dict[str, Any]) -> dict[str, Any]:
        check_ref_editable(current, changes)
        merged = current | changes
        check_time_window(merged.get("time_window_start"), merged.get("time_window_end"))
        return stored(changes)

    return await PLAN.locked_change(graph, scope, checked)


async def transition_plan(
    graph: GraphExecutor,
    *,
    principal: Principal,
    plan_id: str,
    target: PlanStatus,
    constraints: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Move a plan to `target`; approving also freezes the constraint versions in force (or
    those `constraints` names) as its snapshot."""
    principal.require_writer()
    check_approval(principal, target, constraints)
    scope = PLAN.scope(principal, plan_id)

    async def work(tx: Tx) -> dict[str, Any]:
        current = await PLAN.locked(tx, scope)
        check_transition(PlanStatus(current["status"]), target)
        now = datetime.now(UTC)
        if target is PlanStatus.APPROVED:
            given = constraints or {}
            frozen = await versions_to_freeze(tx, principal.client_id, given)
            snapshot = snapshot_props(principal, given | frozen, now)
            frozen_ids = list(frozen.values())
            approve = {"snapshot": snapshot, "frozen": frozen_ids, "status": target.value}
            rows = await tx.run(APPROVE_PLAN, scope | approve | {"now": now})
            note_change(principal.client_id, "Plan", scope["id"], ChangeAction.UPDATED)
            note_change(
                principal.client_id, "ConstraintsSnapshot", snapshot["id"], ChangeAction.CREATED
            )
            return dict(plain(rows[0]["plan"]))
        return await PLAN.change(tx, scope, {"status": target.value}, now=now)

    return await graph.in_transaction(work)
