"""What a workspace memory may hold (seed 002): a key, its type, a JSON value, metadata and
a priority; everything that can fail on bad input fails here, before the write."""

from __future__ import annotations

from typing import Any

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.field_rules import enum_value, json_text
from app.domain.memory.rules import check_key, check_priority
from app.model.enums import WorkspaceMemoryType


def check_workspace_memory(fields: dict[str, Any]) -> dict[str, Any]:
    """The stored values: key (1-256 characters), memory_type, value (a JSON object or array,
    required), metadata (a JSON object), priority (1-10, default 5)."""
    value = fields.get("value")
    if value is None:
        raise ValidationFailed("value is required: a JSON object or array", field="value")
    return {
        "key": check_key(fields.get("key"), required=True),
        "memory_type": enum_value(
            WorkspaceMemoryType, fields.get("memory_type"), field="memory_type"
        ).value,
        "value": json_text(value, field="value", kinds=(dict, list)),
        "metadata": json_text(fields.get("metadata"), field="metadata"),
        "priority": check_priority(fields.get("priority")),
    }
