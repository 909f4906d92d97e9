"""contextual_memory lines (seed 004): one context entry per line, a record of memory type
context (kind working) keyed `context:<context_id>` in the namespace of its session (path
"context"). The legacy embedding is dropped: the embedding worker embeds the record with this
service's model."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from app.domain.kernel.principal import Principal
from app.domain.legacy import values as v
from app.domain.legacy.units import Unit, planned
from app.model.enums import MemoryType

PATH = "context"


def context_unit(
    row: dict[str, Any], *, line: int, principal: Principal, agent: str | None, now: datetime
) -> Unit:
    context_id = v.legacy_id(row.get("context_id"), field="context_id")
    data = v.required_object(row.get("context_data"), field="context_data")
    session = row.get("session_id")
    created = v.legacy_time(row.get("created_at"), field="created_at", now=now, default=now)
    text = data.get("text") if isinstance(data.get("text"), str) else None
    fields = {
        "agent": agent,
        "session_id": None
        if session is None
        else v.session_id_of(principal.client_id, v.legacy_id(session, field="session_id")),
        "path": [PATH],
        "key": f"context:{context_id}",
        "memory_type": MemoryType.CONTEXT.value,
        "text": text,
        "content": data,
        "tags": v.json_list(row.get("tags"), field="tags"),
        "priority": row.get("priority"),
        "source_agent": row.get("source_agent"),
        "expires_at": v.parse_time(row.get("expires_at"), field="expires_at"),
    }
    return Unit(line, records=[planned(fields, principal=principal, now=now, created_at=created)])
