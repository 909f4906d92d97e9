"""Subjects (user profiles, seed 004) and relationship context (seed 003): a MemorySubject per
(client, external_ref), and per agent a (MemorySubject)-[:RELATES_TO]->(Agent) relationship with
its type, custom prompt, memory settings and contact counters.

Writes to a relationship lock the subject (set) or the relationship itself (touch) before they
read it, so concurrent touches add up and never create a second RELATES_TO.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.domain.agents import subject_rules as rules
from app.domain.agents.repository import (
    AGENT_ROW,
    acting_agent_name,
    agent_name_for,
    note_new_agent,
    note_upsert,
)
from app.domain.kernel.errors import NotFound
from app.domain.kernel.field_rules import check_aware, decoded
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.graph.change_feed import note_change
from app.graph.executor import GraphExecutor, Tx
from app.graph.fragments import lock, merge_agent
from app.graph.values import plain
from app.model.enums import ChangeAction

SUBJECT = "MemorySubject"
# updated_at is computed first, from the values before this upsert: it moves when a given
# value differs from the stored one (a value given where none was stored included).
UPSERT_SUBJECT = """
MERGE (s:MemorySubject {client_id: $client_id, external_ref: $external_ref})
ON CREATE SET s.id = $id, s.created_at = $now, s.updated_at = $now,
              s.display_name = $display_name, s.profile = $profile,
              s.preferences = $preferences, s.active = coalesce($active, true)
ON MATCH SET
  s.updated_at = CASE WHEN coalesce($display_name = s.display_name, $display_name IS NULL)
                       AND coalesce($profile = s.profile, $profile IS NULL)
                       AND coalesce($preferences = s.preferences, $preferences IS NULL)
                       AND coalesce($active = s.active, $active IS NULL)
                      THEN s.updated_at ELSE $now END,
  s.display_name = coalesce($display_name, s.display_name),
  s.profile = coalesce($profile, s.profile),
  s.preferences = coalesce($preferences, s.preferences),
  s.active = coalesce($active, s.active, true)
RETURN s {.*} AS subject, s.id = $id AS created, s.updated_at = $now AS updated
"""
GET_SUBJECT = """
MATCH (s:MemorySubject {client_id: $client_id, external_ref: $external_ref})
RETURN s {.*} AS subject
"""
RELATED = "s {.*} AS subject, a {.*} AS agent, r {.*} AS relationship"
SET_RELATIONSHIP = f"""
MATCH (s:MemorySubject {{client_id: $client_id, external_ref: $subject}})
{lock("s")}
{merge_agent()}
MERGE (s)-[r:RELATES_TO]->(a)
ON CREATE SET r.created_at = $now, r.started_at = $now, r.sessions = 0, r.interactions = 0,
              r.minutes = 0.0
SET r.type = $props.type,
    r.custom_prompt = coalesce($props.custom_prompt, r.custom_prompt),
    r.memory_settings = coalesce($props.memory_settings, r.memory_settings),
    r.updated_at = $now
RETURN {RELATED}, {AGENT_ROW}
"""
MATCH_RELATIONSHIP = """
MATCH (s:MemorySubject {client_id: $client_id, external_ref: $subject})
      -[r:RELATES_TO]->(a:Agent {client_id: $client_id, name: $agent_name})
"""
TOUCH_RELATIONSHIP = f"""{MATCH_RELATIONSHIP}
{lock("r")}
WITH s, r, a
SET r.sessions = r.sessions + $steps.sessions,
    r.interactions = r.interactions + $steps.interactions,
    r.minutes = r.minutes + $steps.minutes,
    r.last_contact = CASE WHEN r.last_contact IS NULL OR r.last_contact < $at
                          THEN $at ELSE r.last_contact END,
    r.updated_at = $now
RETURN {RELATED}
"""
GET_RELATIONSHIP = f"{MATCH_RELATIONSHIP}RETURN {RELATED}"


def subject_record(node: Any) -> dict[str, Any]:
    return decoded(dict(plain(node)), ("profile", "preferences"))


def relationship_record(row: dict[str, Any]) -> dict[str, Any]:
    """{subject, agent, relationship} with JSON decoded."""
    return {
        "subject": subject_record(row["subject"]),
        "agent": decoded(dict(plain(row["agent"])), ("state",)),
        "relationship": decoded(dict(plain(row["relationship"])), ("memory_settings",)),
    }


async def upsert_subject(
    graph: GraphExecutor, *, principal: Principal, fields: dict[str, Any]
) -> dict[str, Any]:
    """The client's subject with that external_ref, created if new (active); a given display
    name, profile, preferences or active flag replaces the stored one."""
    principal.require_writer()
    props = rules.check_subject(fields)
    params = props | {"client_id": principal.client_id, "id": new_id(), "now": datetime.now(UTC)}

    async def work(tx: Tx) -> dict[str, Any]:
        row = (await tx.run(UPSERT_SUBJECT, params))[0]
        subject = subject_record(row["subject"])
        created, updated = row["created"], row["updated"]
        note_upsert(principal.client_id, SUBJECT, subject["id"], created=created, updated=updated)
        return subject

    return await graph.in_transaction(work)


async def get_subject(
    graph: GraphExecutor, *, principal: Principal, external_ref: str
) -> dict[str, Any]:
    ref = rules.check_ref(external_ref, field="external_ref")
    rows = await graph.read(GET_SUBJECT, {"client_id": principal.client_id, "external_ref": ref})
    if not rows:
        raise NotFound(f"no subject {ref!r}", external_ref=ref)
    return subject_record(rows[0]["subject"])


def _scope(principal: Principal, subject: str, agent_name: str) -> dict[str, Any]:
    return {
        "client_id": principal.client_id,
        "subject": rules.check_ref(subject),
        "agent_name": agent_name,
        "now": datetime.now(UTC),
    }


def _found(
    rows: list[dict[str, Any]], scope: dict[str, Any], *, subject_only: bool
) -> dict[str, Any]:
    if not rows:
        ref, agent = scope["subject"], scope["agent_name"]
        message = (
            f"no subject {ref!r}: create it with upsertSubject"
            if subject_only
            else f"no relationship context between subject {ref!r} and agent {agent!r}: "
            "create it with setRelationship"
        )
        raise NotFound(message, subject=ref, agent_name=agent)
    return relationship_record(rows[0])


async def set_relationship(
    graph: GraphExecutor,
    *,
    principal: Principal,
    subject: str,
    agent_name: str | None,
    fields: dict[str, Any],
) -> dict[str, Any]:
    """Create or update the subject's relationship context with the agent (created on first
    use); customPrompt and memorySettings left out keep their stored values."""
    principal.require_writer()
    scope = _scope(principal, subject, acting_agent_name(principal, agent_name))
    params = scope | {"props": rules.check_relationship(fields), "agent_id": new_id()}

    async def work(tx: Tx) -> dict[str, Any]:
        rows = await tx.run(SET_RELATIONSHIP, params)
        found = _found(rows, scope, subject_only=True)
        note_new_agent(principal.client_id, rows[0])
        _note_related(principal.client_id, found)
        return found

    return await graph.in_transaction(work)


async def touch_relationship(
    graph: GraphExecutor,
    *,
    principal: Principal,
    subject: str,
    agent_name: str | None,
    fields: dict[str, Any],
    at: datetime | None,
) -> dict[str, Any]:
    """Add one contact's sessions, interactions and minutes to the counters and move
    last_contact forward to `at` (now by default), atomically."""
    principal.require_writer()
    check_aware(at, field="at")
    scope = _scope(principal, subject, acting_agent_name(principal, agent_name))
    params = scope | {"steps": rules.check_touch(fields), "at": at or scope["now"]}

    async def work(tx: Tx) -> dict[str, Any]:
        found = _found(await tx.run(TOUCH_RELATIONSHIP, params), scope, subject_only=False)
        _note_related(principal.client_id, found)
        return found

    return await graph.in_transaction(work)


def _note_related(client_id: str, found: dict[str, Any]) -> None:
    """A relationship context is the subject's (its source): the subject changed."""
    note_change(client_id, SUBJECT, found["subject"]["id"], ChangeAction.UPDATED)


async def get_relationship(
    graph: GraphExecutor, *, principal: Principal, subject: str, agent_name: str | None
) -> dict[str, Any]:
    scope = _scope(principal, subject, agent_name_for(principal, agent_name))
    rows = await graph.read(GET_RELATIONSHIP, scope)
    return _found(rows, scope, subject_only=False)
