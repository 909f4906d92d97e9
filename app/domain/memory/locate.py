"""How a call names one memory record: by id, or by namespace and key (never both)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.ids import check_id
from app.domain.memory import rules
from app.graph.fragments import live, not_expired, own, record_projection

# A record as returned: every property but the search index's own (the embedding is large).
RECORD_MAP = record_projection("r")
RETURN_RECORD = f"RETURN {RECORD_MAP} AS record"
# Visible to readers: not forgotten, not expired ($now is the read time).
LIVE = live("r")
NOT_EXPIRED = not_expired("r")


@dataclass(frozen=True)
class Locator:
    by: str  # "id" or "key"
    params: dict[str, Any]

    # The MATCH of each way; queries are composed from these constants only.
    MATCHES: ClassVar[dict[str, str]] = {
        "id": f"MATCH {own('r', 'MemoryRecord')}",
        "key": "MATCH (r:MemoryRecord {client_id: $client_id, namespace: $namespace, key: $key})",
    }

    def describe(self) -> str:
        if self.by == "id":
            return str(self.params["id"])
        return f"{self.params['namespace'] or '(root)'} key {self.params['key']!r}"


def canonical_namespace(namespace: dict[str, Any] | str | None) -> str:
    """The canonical join of namespace parts, or a canonical string checked segment by
    segment; None is the root namespace."""
    if namespace is None:
        return ""
    if isinstance(namespace, str):
        return rules.check_namespace_prefix(namespace) or ""
    if isinstance(namespace, dict):
        return rules.join_namespace(rules.namespace_parts(namespace))
    raise ValidationFailed("namespace must be namespace parts or a string", field="namespace")


def locate(
    record_id: str | None, namespace: dict[str, Any] | str | None, key: str | None
) -> Locator:
    if record_id is not None:
        if key is not None:
            raise ValidationFailed("give id, or namespace and key, not both", field="id")
        return Locator("id", {"id": check_id(str(record_id))})
    if key is None:
        raise ValidationFailed("give id, or namespace and key", field="key")
    checked = rules.check_key(key, required=True)
    return Locator("key", {"namespace": canonical_namespace(namespace), "key": checked})
