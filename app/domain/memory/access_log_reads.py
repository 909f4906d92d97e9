"""Reading the memory access log: admins and analysts of the client, newest first, keyset
pages. What is still buffered is written first, so an access is readable once it happened."""

from __future__ import annotations

from typing import Any

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.field_rules import check_aware, enum_value
from app.domain.kernel.ids import check_id
from app.domain.kernel.pagination import check_page_size, keyset_params
from app.domain.kernel.principal import Principal
from app.domain.memory import access_log
from app.domain.memory.value_rules import check_bounded_text
from app.graph.executor import GraphExecutor
from app.graph.fragments import keyset_page
from app.graph.values import plain
from app.model.enums import AccessOutcome, Role

FILTERS = """($operations IS NULL OR e.operation IN $operations)
  AND ($principal IS NULL OR e.principal = $principal)
  AND ($target_id IS NULL OR e.target_id = $target_id)
  AND ($outcome IS NULL OR e.outcome = $outcome)
  AND ($session_id IS NULL OR e.session_id = $session_id)
  AND ($request_id IS NULL OR e.request_id = $request_id)
  AND ($after_time IS NULL OR e.created_at > $after_time)
  AND ($before_time IS NULL OR e.created_at < $before_time)
"""
LIST_ENTRIES = keyset_page(
    "MATCH (e:AccessLogEntry {client_id: $client_id})", FILTERS, "e", "e {.*}", "entries"
)
READERS = (Role.ADMIN, Role.ANALYST)
MAX_OPERATIONS = 20


def access_filter(where: dict[str, Any]) -> dict[str, Any]:
    operations = where.get("operations")
    if operations is not None and (
        not isinstance(operations, list) or not 1 <= len(operations) <= MAX_OPERATIONS
    ):
        raise ValidationFailed(f"operations must list 1-{MAX_OPERATIONS}", field="operations")
    target_id = where.get("target_id")
    outcome = where.get("outcome")
    for name in ("after", "before"):
        check_aware(where.get(name), field=name)
    return {
        "operations": [check_bounded_text(o, field="operations", limit=40) for o in operations]
        if operations
        else None,
        "principal": check_bounded_text(where.get("principal"), field="principal", limit=200),
        "target_id": None if target_id is None else check_id(str(target_id), field="target_id"),
        "outcome": None
        if outcome is None
        else enum_value(AccessOutcome, outcome, field="outcome").value,
        "session_id": check_bounded_text(where.get("session_id"), field="session_id", limit=200),
        "request_id": check_bounded_text(where.get("request_id"), field="request_id", limit=64),
        "after_time": where.get("after"),
        "before_time": where.get("before"),
    }


async def list_access_log(
    graph: GraphExecutor,
    *,
    principal: Principal,
    where: dict[str, Any],
    first: int = 50,
    after: str | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """(up to first + 1 entries, newest first; total under the filter)."""
    principal.require(*READERS)
    params = access_filter(where) | keyset_params(after)
    params |= {"client_id": principal.client_id, "limit": check_page_size(first) + 1}
    writer = access_log.installed()
    if writer is not None:
        await writer.flush()
    row = (await graph.read(LIST_ENTRIES, params))[0]
    return [plain(e) for e in row["entries"]], int(row["total"])
