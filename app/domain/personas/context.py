"""personaContext (seed 003's call initialisation): the composite prompt of a persona for a
subject within a token budget, with the ids of the records it used. One read (cypher.py), then
packing (prompt.py) in this order: core personality, relationship context, long-term facts
about the subject (highest priority, then newest, first), the latest summary of each recent
session with the persona (newest first), the persona's procedures (highest priority first).

The relationship's memory settings (seed 003's memory_config) are honoured:
remember_personal_facts false leaves the facts out, remember_past_conversations false the
sessions, and auto_recall_depth (1-50, default 10) says how many recent sessions to recall.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.domain.kernel.errors import NotFound, ValidationFailed
from app.domain.kernel.field_rules import decoded
from app.domain.kernel.principal import Principal
from app.domain.memory import audited, check_segment, join_namespace, procedure_prefix
from app.domain.personas import cypher, rules
from app.domain.personas.prompt import Line, Packed, core_lines, pack
from app.domain.sessions import PROGRESS_KEY
from app.graph.executor import GraphExecutor
from app.graph.values import plain
from app.model.enums import MemoryKind, PersonaSection
from app.retrieval.budget import MAX_BUDGET

DEFAULT_RECALL_DEPTH = 10


@dataclass(frozen=True)
class PersonaContext:
    persona: dict[str, Any]
    version: dict[str, Any]
    subject: str
    display_name: str | None  # the subject's, when it has a profile
    relationship: dict[str, Any] | None
    packed: Packed
    token_budget: int


def check_request(subject: Any, persona: Any, token_budget: Any, version: Any) -> dict[str, Any]:
    budget = token_budget
    if isinstance(budget, bool) or not isinstance(budget, int) or not 1 <= budget <= MAX_BUDGET:
        raise ValidationFailed(f"token_budget must be 1-{MAX_BUDGET}", field="token_budget")
    if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
        raise ValidationFailed("version must be a whole number from 1", field="version")
    if version is not None and version < 1:
        raise ValidationFailed("version must be a whole number from 1", field="version")
    return {
        "subject": check_segment(subject, field="subject"),
        "persona": rules.check_name(persona),
        "token_budget": budget,
        "version": version,
    }


def read_params(client_id: str, request: dict[str, Any]) -> dict[str, Any]:
    """The parameters of cypher.CONTEXT for a checked request (bench persona_context too)."""
    subject, persona = request["subject"], request["persona"]
    return {
        "client_id": client_id,
        "subject": subject,
        "persona": persona,
        "version": request["version"],
        "subject_namespace": join_namespace({"subject": subject}),
        "sessions_namespace": join_namespace({"subject": subject, "agent": persona}) + "/session:",
        "procedures_namespace": procedure_prefix(persona),
        "fact_kinds": list(cypher.FACT_KINDS),
        "episodic": MemoryKind.EPISODIC.value,
        "procedural": MemoryKind.PROCEDURAL.value,
        "max_facts": cypher.MAX_FACTS,
        "max_sessions": cypher.MAX_SESSIONS,
        "max_procedures": cypher.MAX_PROCEDURES,
        "now": datetime.now(UTC),
    }


async def persona_context(
    graph: GraphExecutor,
    *,
    principal: Principal,
    subject: str,
    persona: str,
    token_budget: int,
    version: int | None = None,
) -> PersonaContext:
    """NOT_FOUND for a persona the client does not have (or a version it lacks)."""
    request = check_request(subject, persona, token_budget, version)
    with audited(principal, "context", target_type="Persona") as audit:
        rows = await graph.read(cypher.CONTEXT, read_params(principal.client_id, request))
        if not rows:
            raise NotFound(f"no persona {request['persona']!r}", name=request["persona"])
        row = plain(rows[0])
        found = _found(row, request)
        audit.target_id = found.persona["id"]
        audit.detail = f"{len(found.packed.used_ids)} records in persona context"
    return found


def _found(row: dict[str, Any], request: dict[str, Any]) -> PersonaContext:
    persona = dict(row["persona"])
    if row["version"] is None:
        raise NotFound(
            f"persona {persona['name']!r} has no version {request['version']}; its current "
            f"version is {persona['current_version']}",
            id=persona["id"],
        )
    version = decoded(dict(row["version"]), ("traits",))
    relationship = row["relationship"]
    if relationship is not None:
        relationship = decoded(dict(relationship), ("memory_settings",))
    display = (row["subject"] or {}).get("display_name")
    name = display or request["subject"]
    candidates = {
        PersonaSection.CORE: core_lines(version),
        PersonaSection.RELATIONSHIP: _relationship_lines(relationship),
        **_memory_lines(row, _settings(relationship)),
    }
    packed = pack(candidates, name=name, budget=request["token_budget"])
    return PersonaContext(
        persona, version, request["subject"], display, relationship, packed, request["token_budget"]
    )


def _settings(relationship: dict[str, Any] | None) -> dict[str, Any]:
    found = (relationship or {}).get("memory_settings")
    return found if isinstance(found, dict) else {}


def _recall_depth(settings: dict[str, Any]) -> int:
    depth = settings.get("auto_recall_depth")
    if isinstance(depth, bool) or not isinstance(depth, int):
        return DEFAULT_RECALL_DEPTH
    return max(0, min(depth, cypher.MAX_SESSIONS))


def _relationship_lines(relationship: dict[str, Any] | None) -> list[Line]:
    if relationship is None:
        return []
    lines = [Line(f"Relationship: {relationship['type']}")]
    if relationship.get("custom_prompt"):
        lines.append(Line(str(relationship["custom_prompt"]).strip()))
    last = relationship.get("last_contact")
    if relationship.get("sessions") or last:
        when = f"; last contact {last:%Y-%m-%d}" if isinstance(last, datetime) else ""
        lines.append(Line(f"Contact so far: {relationship.get('sessions', 0)} sessions{when}."))
    return lines


def _said(record: dict[str, Any]) -> str:
    """A record's text, else its (inline) content as compact JSON."""
    text = record.get("text")
    if text:
        return " ".join(str(text).split())
    return str(record.get("content") or "")


def _memory_lines(
    row: dict[str, Any], settings: dict[str, Any]
) -> dict[PersonaSection, list[Line]]:
    facts = [] if settings.get("remember_personal_facts") is False else row["facts"]
    sessions = [] if settings.get("remember_past_conversations") is False else row["summaries"]
    return {
        PersonaSection.FACTS: [Line(f"- {_said(r)}", r["id"]) for r in facts],
        PersonaSection.RECENT_SESSIONS: [
            Line(f"- {_when(r)}: {_said(r)}", r["id"]) for r in sessions[: _recall_depth(settings)]
        ],
        PersonaSection.PROCEDURES: [
            Line(f"- {r['key']}: {_said(r)}", r["id"]) for r in row["procedures"]
        ],
    }


def _when(summary: dict[str, Any]) -> str:
    state = "in progress" if summary.get("key") == PROGRESS_KEY else "ended"
    at = summary["updated_at"]
    return f"{at:%Y-%m-%d} ({state})" if isinstance(at, datetime) else state
