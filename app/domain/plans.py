"""Plan repository: every function takes the principal and scopes its Cypher by client_id."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum
from typing import Any

from app.domain.errors import NotFound
from app.domain.ids import check_id, new_id
from app.domain.pagination import Page, check_page_size, encode_cursor, keyset_params
from app.domain.plan_rules import check_plan_fields, check_time_window, check_transition
from app.domain.principal import Principal
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import PlanStatus

CREATE_PLAN = """
CREATE (p:Plan $props)
RETURN p {.*} AS plan
"""
GET_PLAN = """
MATCH (p:Plan {id: $id, client_id: $client_id})
RETURN p {.*} AS plan
"""
# Setting and removing a dummy property takes the node's write lock before the read.
LOCK_PLAN = """
MATCH (p:Plan {id: $id, client_id: $client_id})
SET p._lock = true REMOVE p._lock
RETURN p {.*} AS plan
"""
UPDATE_PLAN = """
MATCH (p:Plan {id: $id, client_id: $client_id})
SET p += $changes, p.updated_at = $now
RETURN p {.*} AS plan
"""
PLAN_FILTER = """
($statuses IS NULL OR p.status IN $statuses)
  AND ($created_after IS NULL OR p.created_at >= $created_after)
  AND ($created_before IS NULL OR p.created_at < $created_before)
  AND ($name_contains IS NULL OR toLower(p.name) CONTAINS toLower($name_contains))
"""
# One round trip: the total over the filter, then one keyset page, newest first.
LIST_PLANS = f"""
CALL () {{
  MATCH (p:Plan {{client_id: $client_id}})
  WHERE {PLAN_FILTER}
  RETURN count(p) AS total
}}
OPTIONAL MATCH (p:Plan {{client_id: $client_id}})
WHERE {PLAN_FILTER}
  AND ($after_created_at IS NULL OR p.created_at < $after_created_at
       OR (p.created_at = $after_created_at AND p.id < $after_id))
WITH total, p ORDER BY p.created_at DESC, p.id DESC LIMIT $limit
RETURN total, collect(p {{.*}}) AS plans
"""


@dataclass(frozen=True)
class PlanFilter:
    statuses: list[PlanStatus] | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None
    name_contains: str | None = None

    def params(self) -> dict[str, Any]:
        return {
            "statuses": [s.value for s in self.statuses] if self.statuses else None,
            "created_after": self.created_after,
            "created_before": self.created_before,
            "name_contains": self.name_contains,
        }


def _stored(fields: dict[str, Any]) -> dict[str, Any]:
    """Enum members become their string values, as the graph stores them."""
    return {key: _stored_value(value) for key, value in fields.items()}


def _stored_value(value: Any) -> Any:
    if isinstance(value, list):
        return [_stored_value(item) for item in value]
    return value.value if isinstance(value, Enum) else value


async def create_plan(
    graph: GraphExecutor, *, principal: Principal, fields: dict[str, Any]
) -> dict[str, Any]:
    principal.require_writer()
    check_plan_fields(fields)
    now = datetime.now(UTC)
    props = _stored(fields) | {
        "id": new_id(),
        "client_id": principal.client_id,
        "status": PlanStatus.DRAFT.value,
        "created_at": now,
        "updated_at": now,
    }
    rows = await graph.write(CREATE_PLAN, {"props": props})
    return dict(plain(rows[0]["plan"]))


async def get_plan(graph: GraphExecutor, *, principal: Principal, plan_id: str) -> dict[str, Any]:
    rows = await graph.read(
        GET_PLAN, {"id": check_id(plan_id, field="id"), "client_id": principal.client_id}
    )
    if not rows:
        raise NotFound(f"no plan with id {plan_id}", id=plan_id)
    return dict(plain(rows[0]["plan"]))


async def update_plan(
    graph: GraphExecutor, *, principal: Principal, plan_id: str, changes: dict[str, Any]
) -> dict[str, Any]:
    principal.require_writer()
    check_plan_fields(changes)
    scope = {"id": check_id(plan_id, field="id"), "client_id": principal.client_id}

    async def work(tx: Tx) -> dict[str, Any]:
        current = await _locked_plan(tx, scope)
        merged = current | changes
        check_time_window(merged.get("time_window_start"), merged.get("time_window_end"))
        params = scope | {"changes": _stored(changes), "now": datetime.now(UTC)}
        rows = await tx.run(UPDATE_PLAN, params)
        return dict(plain(rows[0]["plan"]))

    return await graph.in_transaction(work)


async def transition_plan(
    graph: GraphExecutor, *, principal: Principal, plan_id: str, target: PlanStatus
) -> dict[str, Any]:
    principal.require_writer()
    scope = {"id": check_id(plan_id, field="id"), "client_id": principal.client_id}

    async def work(tx: Tx) -> dict[str, Any]:
        current = await _locked_plan(tx, scope)
        check_transition(PlanStatus(current["status"]), target)
        params = scope | {"changes": {"status": target.value}, "now": datetime.now(UTC)}
        rows = await tx.run(UPDATE_PLAN, params)
        return dict(plain(rows[0]["plan"]))

    return await graph.in_transaction(work)


async def _locked_plan(tx: Tx, scope: dict[str, str]) -> dict[str, Any]:
    rows = await tx.run(LOCK_PLAN, scope)
    if not rows:
        raise NotFound(f"no plan with id {scope['id']}", id=scope["id"])
    return dict(plain(rows[0]["plan"]))


async def list_plans(
    graph: GraphExecutor,
    *,
    principal: Principal,
    where: PlanFilter,
    first: int = 20,
    after: str | None = None,
) -> Page[dict[str, Any]]:
    params = where.params() | keyset_params(after) | {"client_id": principal.client_id}
    rows = await graph.read(LIST_PLANS, params | {"limit": check_page_size(first) + 1})
    found = [dict(plain(plan)) for plan in rows[0]["plans"]]
    plans = found[:first]
    return Page(
        items=plans,
        cursors=[encode_cursor(p["created_at"], p["id"]) for p in plans],
        total_count=int(rows[0]["total"]),
        has_next_page=len(found) > first,
    )
