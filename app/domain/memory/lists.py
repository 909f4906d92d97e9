"""Listing memory records: filters on namespace, kind, memory type, tags, priority and time,
keyset pages over (created_at, id) like every other list. Expired records never appear;
forgotten ones only for admins who ask (include_inactive)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.field_rules import check_aware, enum_value
from app.domain.kernel.pagination import check_page_size, keyset_params
from app.domain.kernel.principal import Principal
from app.domain.memory import rules
from app.domain.memory import value_rules as vrules
from app.domain.memory.access_log import audited
from app.domain.memory.content import decode_inline, hydrate_all
from app.domain.memory.locate import NOT_EXPIRED, RECORD_MAP
from app.graph.executor import GraphExecutor
from app.graph.fragments import keyset_page
from app.graph.values import plain
from app.model.enums import MemoryKind, MemoryType, ProcedureType, Role

FILTERS = f"""{NOT_EXPIRED}
  AND ($include_inactive OR r.active)
  AND ($prefix IS NULL OR r.namespace = $prefix OR r.namespace STARTS WITH $prefix + '/')
  AND ($subject IS NULL OR r.subject = $subject)
  AND ($agent IS NULL OR r.agent = $agent)
  AND ($session_id IS NULL OR r.session_id = $session_id)
  AND ($key IS NULL OR r.key = $key)
  AND ($timeline IS NULL OR r.timeline = $timeline)
  AND ($kinds IS NULL OR r.kind IN $kinds)
  AND ($memory_types IS NULL OR r.memory_type IN $memory_types)
  AND ($procedure_type IS NULL OR r.procedure_type = $procedure_type)
  AND ($tags_any IS NULL OR any(t IN $tags_any WHERE t IN r.tags))
  AND ($tags_all IS NULL OR all(t IN $tags_all WHERE t IN r.tags))
  AND ($min_priority IS NULL OR r.priority >= $min_priority)
  AND ($max_priority IS NULL OR r.priority <= $max_priority)
  AND ($created_after IS NULL OR r.created_at > $created_after)
  AND ($created_before IS NULL OR r.created_at < $created_before)
  AND ($updated_after IS NULL OR r.updated_at > $updated_after)
  AND ($text IS NULL OR toLower(r.text) CONTAINS $text)
"""
LIST_RECORDS = keyset_page(
    "MATCH (r:MemoryRecord {client_id: $client_id})", FILTERS, "r", RECORD_MAP, "records"
)
TIMES = ("created_after", "created_before", "updated_after")


def _optional_list(values: Any, check: Any, *, field: str) -> list[Any] | None:
    if values is None:
        return None
    if not isinstance(values, list | tuple) or not values or len(values) > vrules.MAX_TAGS:
        raise ValidationFailed(f"{field} must list 1-{vrules.MAX_TAGS} values", field=field)
    return [check(value) for value in values]


def list_filter(where: dict[str, Any]) -> dict[str, Any]:
    """Query parameters of a memory filter; every field is optional."""
    params: dict[str, Any] = {"prefix": rules.check_namespace_prefix(where.get("namespace_prefix"))}
    for name in ("subject", "agent", "session_id", "timeline"):
        value = where.get(name)
        params[name] = None if value is None else rules.check_segment(value, field=name)
    params["key"] = rules.check_key(where.get("key"))
    params["kinds"] = _optional_list(
        where.get("kinds"), lambda k: enum_value(MemoryKind, k, field="kinds").value, field="kinds"
    )
    params["memory_types"] = _optional_list(
        where.get("memory_types"),
        lambda t: enum_value(MemoryType, t, field="memory_types").value,
        field="memory_types",
    )
    procedure_type = where.get("procedure_type")
    params["procedure_type"] = (
        None
        if procedure_type is None
        else enum_value(ProcedureType, procedure_type, field="procedure_type").value
    )
    params["tags_any"] = _optional_list(where.get("tags_any"), vrules.normal_tag, field="tags_any")
    params["tags_all"] = _optional_list(where.get("tags_all"), vrules.normal_tag, field="tags_all")
    for name in ("min_priority", "max_priority"):
        value = where.get(name)
        params[name] = None if value is None else rules.check_priority(value)
    for name in TIMES:
        check_aware(where.get(name), field=name)
        params[name] = where.get(name)
    text = vrules.check_bounded_text(where.get("text_contains"), field="text_contains", limit=200)
    params["text"] = text.lower() if text else None
    return params


async def list_records(
    graph: GraphExecutor,
    artifacts: ArtifactStore | None,
    *,
    principal: Principal,
    where: dict[str, Any],
    first: int = 20,
    after: str | None = None,
    include_inactive: bool = False,
) -> tuple[list[dict[str, Any]], int]:
    """(up to first + 1 records, newest first; total under the filter). With `artifacts`, content
    kept in object storage is read back too; without, only inline content is decoded."""
    with audited(principal, "list") as audit:
        if include_inactive:
            principal.require(Role.ADMIN)
        params = list_filter(where) | keyset_params(after)
        params |= {
            "client_id": principal.client_id,
            "now": datetime.now(UTC),
            "include_inactive": include_inactive,
            "limit": check_page_size(first) + 1,
        }
        row = (await graph.read(LIST_RECORDS, params))[0]
        records = [plain(r) for r in row["records"]]
        audit.detail = f"{len(records[:first])} of {row['total']}"
        if artifacts is not None:
            # The extra record only tells that a next page exists: its content is not read.
            page = await hydrate_all(artifacts, principal, records[:first])
            return page + [decode_inline(r) for r in records[first:]], int(row["total"])
        return [decode_inline(r) for r in records], int(row["total"])
