"""Semantic documents and procedures (seed 003) as thin operations over memory records.

Semantic document: a record of kind semantic at path `semantic` (under an optional subject
and agent), keyed by the caller's object id; its JSON document is the record's content.
Procedure: a record of kind procedural at `agent:{agent}/procedures`, keyed by its name, with a
procedure_type (template, response_pattern, workflow); every put keeps the previous version.
"""

from __future__ import annotations

from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.principal import Principal
from app.domain.memory import records, rules
from app.domain.memory import value_rules as vrules
from app.domain.memory.fields import MemoryPolicy
from app.graph.executor import GraphExecutor
from app.model.enums import MemoryKind

SEMANTIC_PATH = "semantic"
PROCEDURE_PATH = "procedures"
OPTIONAL = ("text", "tags", "priority", "expires_at", "ttl_seconds", "source_agent")


def semantic_namespace(subject: str | None, agent: str | None) -> dict[str, Any]:
    return {"subject": subject, "agent": agent, "path": [SEMANTIC_PATH]}


def procedure_namespace(agent: str) -> dict[str, Any]:
    if agent is None:
        raise ValidationFailed("procedures belong to an agent (or persona)", field="agent")
    return {"agent": agent, "path": [PROCEDURE_PATH]}


def procedure_prefix(agent: str) -> str:
    return rules.join_namespace(rules.namespace_parts(procedure_namespace(agent)))


def document_text(document: Any, limit: int = vrules.MAX_TEXT) -> str:
    """The searchable text of a document without its own: its string values, depth first."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(document)
    return "\n".join(found)[:limit]


async def put_semantic_document(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    object_id: str,
    document: Any,
    subject: str | None = None,
    agent: str | None = None,
    extra: dict[str, Any] | None = None,
    policy: MemoryPolicy = records.DEFAULT_POLICY,
) -> dict[str, Any]:
    """Store or replace (as a new version) the document with this object id."""
    fields = {k: v for k, v in (extra or {}).items() if k in OPTIONAL and v is not None}
    fields |= semantic_namespace(subject, agent) | {
        "key": object_id,
        "kind": MemoryKind.SEMANTIC.value,
        "content": document,
    }
    if not fields.get("text"):
        fields["text"] = document_text(document) or None
    return await records.remember(
        graph, artifacts, principal=principal, fields=fields, policy=policy
    )


async def put_procedure(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    agent: str,
    name: str,
    procedure_type: str,
    extra: dict[str, Any],
    policy: MemoryPolicy = records.DEFAULT_POLICY,
) -> dict[str, Any]:
    """Store or replace (keeping the previous version) the agent's procedure `name`; `extra`
    carries text (the template or prompt), content (a workflow's steps), tags, priority."""
    fields = {k: v for k, v in extra.items() if v is not None and k in (*OPTIONAL, "content")}
    fields |= procedure_namespace(agent) | {
        "key": name,
        "kind": MemoryKind.PROCEDURAL.value,
        "procedure_type": procedure_type,
    }
    return await records.remember(
        graph, artifacts, principal=principal, fields=fields, policy=policy
    )
