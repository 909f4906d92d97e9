"""Personas: create one with its version 1, edit it by a new immutable version (numbered after
the current one under the persona's write lock, optimistically checked against the version the
editor started from). One transaction each, scoped by $client_id. An agent key creates and
edits only the persona of its own agent name."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from neo4j.exceptions import ConstraintError

from app.domain.kernel.errors import Conflict, ValidationFailed
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import OwnedNode
from app.domain.personas import rules
from app.graph.change_feed import Changed, note_change, unrecorded
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import ChangeAction

PERSONA = OwnedNode("Persona", "persona", what="persona")
NAMED = "MATCH (p:Persona {client_id: $client_id, name: $name}) RETURN p.id AS id"
CREATE_PERSONA = """
CREATE (p:Persona)
SET p = $persona
CREATE (v:PersonaVersion)
SET v = $version
CREATE (p)-[:HAS_VERSION]->(v), (p)-[:CURRENT_VERSION]->(v)
RETURN p {.*} AS persona
"""
CURRENT = """
MATCH (v:PersonaVersion {id: $version_id, client_id: $client_id})
RETURN v {.system_prompt, .traits, .behavioural_rules, .content_sha256} AS version
"""
SET_DESCRIPTION = """
MATCH (p:Persona {id: $id, client_id: $client_id})
SET p.description = $description, p.updated_at = $now
RETURN p {.*} AS persona
"""
NEW_VERSION = """
MATCH (p:Persona {id: $id, client_id: $client_id})-[old:CURRENT_VERSION]->()
DELETE old
CREATE (v:PersonaVersion)
SET v = $version
CREATE (p)-[:HAS_VERSION]->(v), (p)-[:CURRENT_VERSION]->(v)
SET p.current_version = v.version, p.current_version_id = v.id,
    p.description = coalesce($description, p.description), p.updated_at = $now
RETURN p {.*} AS persona
"""


def _reason(value: Any, default: str | None = None) -> str:
    if value is None and default is not None:
        return default
    reason = rules.check_optional_text(value, field="reason", limit=rules.MAX_REASON)
    if reason is None:
        raise ValidationFailed("reason must say why this version was made", field="reason")
    return reason


def _version(
    principal: Principal, persona_id: str, number: int, core: dict[str, Any], reason: str
) -> dict[str, Any]:
    now = datetime.now(UTC)
    return core | {
        "id": new_id(),
        "client_id": principal.client_id,
        "persona_id": persona_id,
        "version": number,
        "traits": json.dumps(core["traits"], sort_keys=True),
        "author": principal.actor,
        "reason": reason,
        "created_at": now,
        "updated_at": now,
    }


async def create_persona(
    graph: GraphExecutor, *, principal: Principal, fields: dict[str, Any]
) -> dict[str, Any]:
    """The client's persona `name` with its version 1; CONFLICT if the name is taken."""
    principal.require_writer()
    name = str(principal.acting_agent(rules.check_name(fields.get("name"))))
    description = rules.check_optional_text(
        fields.get("description"), field="description", limit=rules.MAX_DESCRIPTION
    )
    core = rules.check_core(fields)
    scope = {"client_id": principal.client_id, "name": name}
    await _refuse_taken(await graph.read(NAMED, scope), name)
    persona_id = new_id()
    reason = _reason(fields.get("reason"), rules.FIRST_REASON)
    version = _version(principal, persona_id, 1, core, reason)
    persona = {
        "id": persona_id,
        "client_id": principal.client_id,
        "name": name,
        "description": description,
        "current_version": 1,
        "current_version_id": version["id"],
        "created_at": version["created_at"],
        "updated_at": version["created_at"],
    }
    created = _versioned(principal.client_id, persona_id, version["id"], ChangeAction.CREATED)
    try:
        params = {"persona": persona, "version": version}
        rows = await graph.write(CREATE_PERSONA, params, changed=created)
    except ConstraintError:
        # Another create of this name committed first: the leader has seen it.
        await _refuse_taken(await graph.read_latest(NAMED, scope), name)
        raise
    return dict(plain(rows[0]["persona"]))


async def _refuse_taken(rows: list[dict[str, Any]], name: str) -> None:
    if rows:
        raise Conflict(
            f"this client has a persona {name!r} already ({rows[0]['id']}): edit it "
            "(editPersona) to make a new version",
            id=rows[0]["id"],
        )


async def edit_persona(
    graph: GraphExecutor,
    *,
    principal: Principal,
    persona_id: str,
    changes: dict[str, Any],
) -> dict[str, Any]:
    """A new version with the core parts given (the others as they are) unless the core is
    the current one (a retried edit saves nothing and is no conflict; a new description alone
    changes the persona, not its versions). CONFLICT when base_version is given and is not the
    current version."""
    principal.require_writer()
    reason = _reason(changes.get("reason"))
    base = changes.get("base_version")
    if base is not None and (isinstance(base, bool) or not isinstance(base, int) or base < 1):
        raise ValidationFailed("base_version starts at 1", field="base_version")
    description = rules.check_optional_text(
        changes.get("description"), field="description", limit=rules.MAX_DESCRIPTION
    )
    scope = PERSONA.scope(principal, persona_id)

    async def work(tx: Tx) -> dict[str, Any]:
        persona = await PERSONA.locked(tx, scope)
        principal.require_agent(persona["name"], what="edit the persona of")
        params = scope | {"version_id": persona["current_version_id"]}
        current = dict(plain((await tx.run(CURRENT, params))[0]["version"]))
        current["traits"] = json.loads(current["traits"] or "{}")
        core = rules.edited_core(current, changes)
        now = datetime.now(UTC)
        if core["content_sha256"] == current["content_sha256"]:
            if description in (None, persona.get("description")):
                unrecorded()  # only the lock was written
                return persona
            changed = scope | {"description": description, "now": now}
            rows = await tx.run(SET_DESCRIPTION, changed)
            note_change(principal.client_id, PERSONA.label, persona["id"], ChangeAction.UPDATED)
            return dict(plain(rows[0]["persona"]))
        _check_base(persona, base)
        number = int(persona["current_version"]) + 1
        version = _version(principal, persona["id"], number, core, reason)
        made = {"version": version, "description": description, "now": version["created_at"]}
        rows = await tx.run(NEW_VERSION, scope | made)
        for change in _versioned(
            principal.client_id, persona["id"], version["id"], ChangeAction.UPDATED
        ):
            change.note()
        return dict(plain(rows[0]["persona"]))

    return await graph.in_transaction(work)


def _versioned(
    client_id: str, persona_id: str, version_id: str, action: ChangeAction
) -> list[Changed]:
    """A new version, and its persona (`action`: created with it, or moved to it)."""
    return [
        Changed(client_id, PERSONA.label, persona_id, action),
        Changed(client_id, "PersonaVersion", version_id, ChangeAction.CREATED, persona_id),
    ]


def _check_base(persona: dict[str, Any], base_version: int | None) -> None:
    current = persona["current_version"]
    if base_version is not None and base_version != current:
        raise Conflict(
            f"persona {persona['id']} is at version {current}, and this edit was made from "
            f"version {base_version}: read version {current}, apply your change to it and save "
            "again",
            id=persona["id"],
            currentVersion=current,
        )
