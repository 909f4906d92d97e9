"""Working-memory sessions (seed 003): start a session, put entries on its timelines, delete
entries or whole timelines. Entries are MemoryRecords of kind `working` in the session's
namespace, linked (MemorySession)-[:HAS_ENTRY]->(MemoryRecord); the rules and the entry order
are in session_rules, the flush in session_flush. Every query is scoped by the caller's client.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.artifacts.store import ArtifactStore
from app.domain import expiry
from app.domain.kernel.errors import Conflict
from app.domain.kernel.field_rules import decoded
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import OwnedNode
from app.domain.memory import MemoryPolicy, audited, decode_inline, prepare_memory, write_memory
from app.domain.sessions import rules
from app.graph.change_feed import Changed, note_change
from app.graph.executor import GraphExecutor, Tx
from app.graph.fragments import DB_CLOCK, not_expired
from app.graph.values import plain
from app.model.enums import ChangeAction, MemorySessionStatus

DEFAULT_POLICY = MemoryPolicy()
SESSION_JSON = ("metadata",)
# The session's entries not deleted (a deleted entry stays, inactive, until it is purged) and
# not expired (an entry's TTL, app/domain/expiry: the sweeper purges it later).
LIVE_ENTRY = f"(s)-[:HAS_ENTRY]->(e:MemoryRecord WHERE e.active AND {not_expired('e', DB_CLOCK)})"
# The unique constraint on (client_id, external_ref) makes MERGE race-safe.
MERGE_SESSION = """
MERGE (s:MemorySession {client_id: $client_id, external_ref: $external_ref})
ON CREATE SET s += $props
RETURN s {.*} AS session, s.id = $props.id AS created
"""
CREATE_SESSION = """
CREATE (s:MemorySession)
SET s = $props
RETURN s {.*} AS session, true AS created
"""
SESSION = OwnedNode("MemorySession", "session", what="memory session")
LINK_ENTRY = """
MATCH (s:MemorySession {id: $id, client_id: $client_id})
MATCH (e:MemoryRecord {id: $entry_id, client_id: $client_id})
CREATE (s)-[:HAS_ENTRY]->(e)
SET s += $changes
"""


@dataclass(frozen=True)
class SessionStart:
    session: dict[str, Any]
    created: bool


def session_record(row: Any) -> dict[str, Any]:
    return decoded(plain(row), SESSION_JSON)


def entry_record(row: Any) -> dict[str, Any]:
    """An entry (or summary) record with its inline content decoded."""
    return decode_inline(plain(row))


def session_scope(principal: Principal, session_id: str, *, field: str = "id") -> dict[str, Any]:
    return SESSION.scope(principal, session_id, field=field)


def owned_session(principal: Principal, session: dict[str, Any]) -> dict[str, Any]:
    """The session, if the caller may change it: an agent key only its own agent's sessions."""
    principal.require_agent(session.get("agent"), what="change a session of agent")
    return session


async def locked_session(tx: Tx, scope: dict[str, Any], principal: Principal) -> dict[str, Any]:
    """The session, write-locked for the rest of the transaction (NOT_FOUND if not the
    caller's, FORBIDDEN if not its agent's): puts, deletes and the flush of one session are
    serialised by this lock."""
    return owned_session(principal, session_record(await SESSION.locked(tx, scope)))


def session_changed(scope: dict[str, Any]) -> None:
    """Notes the session UPDATED: its entries, timelines, status or archive changed."""
    note_change(scope["client_id"], "MemorySession", scope["id"], ChangeAction.UPDATED)


async def start_session(
    graph: GraphExecutor,
    *,
    principal: Principal,
    fields: dict[str, Any],
    policy: expiry.Lifetimes = expiry.NO_LIFETIMES,
) -> SessionStart:
    """An open session of an agent (with a subject). With an external_ref the client already
    used, that session is returned unchanged (created=False) when agent and subject agree.
    Its TTLs: the call's ttl_seconds and entry_ttl_seconds, else `policy`'s (app/domain/expiry)."""
    principal.require_writer()
    values = rules.check_new_session(fields)
    principal.require_agent(values["agent"], what="start a session of agent")
    now = datetime.now(UTC)
    lifetime = expiry.session_lifetime(fields, policy, now)
    props = {k: v for k, v in (values | lifetime).items() if v is not None} | {
        "id": new_id(),
        "client_id": principal.client_id,
        "status": MemorySessionStatus.OPEN.value,
        "entry_count": 0,
        "timelines": [],
        "created_at": now,
        "updated_at": now,
    }
    params = {"client_id": principal.client_id, "external_ref": values["external_ref"]}
    query = CREATE_SESSION if values["external_ref"] is None else MERGE_SESSION
    created = Changed(principal.client_id, "MemorySession", props["id"], ChangeAction.CREATED)
    with audited(principal, "start_session", target_type="MemorySession") as audit:
        rows = await graph.write(
            query,
            params | {"props": props},
            changed=lambda rows: [created] if rows[0]["created"] else [],
        )
        row = rows[0]
        session = session_record(row["session"])
        audit.target_id = session["id"]
        if (session["agent"], session.get("subject")) != (values["agent"], values["subject"]):
            raise Conflict(
                f"external_ref {values['external_ref']!r} already names session {session['id']} "
                f"of agent {session['agent']!r} and subject {session.get('subject')!r}",
                id=session["id"],
            )
    return SessionStart(session, bool(row["created"]))


async def put_entry(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    session_id: str,
    fields: dict[str, Any],
    policy: MemoryPolicy = DEFAULT_POLICY,
) -> dict[str, Any]:
    """A new entry at the end of its timeline (INVALID_TRANSITION once the session is flushed).
    Large content goes to object storage first, as for any record (memory_content)."""
    principal.require_writer()
    scope = session_scope(principal, session_id, field="session_id")
    with audited(principal, "create", target_id=scope["id"]) as audit:
        audit.target_type, audit.detail = "MemorySession", "session entry"
        session = await SESSION.read(graph, scope)
        owned_session(principal, session)
        rules.check_open(session)  # before anything is stored
        memory = await prepare_memory(
            artifacts,
            principal=principal,
            fields=rules.entry_fields(session, fields),
            policy=policy,
            now=datetime.now(UTC),
        )

        async def work(tx: Tx) -> dict[str, Any]:
            locked = await locked_session(tx, scope, principal)
            rules.check_open(locked)
            now = datetime.now(UTC)
            created_at = rules.entry_time(locked.get("last_entry_at"), now)
            written = await write_memory(
                tx, principal=principal, memory=memory, now=created_at, parent_id=scope["id"]
            )
            changes = {
                "entry_count": int(locked["entry_count"]) + 1,
                "timelines": rules.with_timeline(locked.get("timelines"), memory.state["timeline"]),
                "last_entry_at": created_at,
                "updated_at": now,
            } | expiry.slid(locked, now)
            params = scope | {"entry_id": written.record["id"], "changes": changes}
            await tx.run(LINK_ENTRY, params)
            session_changed(scope)
            return decode_inline(written.record)

        entry = await graph.in_transaction(work)
        audit.target_type, audit.target_id = "MemoryRecord", entry["id"]
    return entry
