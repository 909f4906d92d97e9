"""Writing one prepared memory inside a transaction (the sessions repository calls this too).

A keyed record is written by one query: MERGE on (client_id, namespace, key) finds it or
creates it (the uniqueness constraint makes two concurrent first writes of a key wait for each
other, and the MERGE write-locks an existing record until the transaction ends); the previous
state becomes a MemoryVersion, and the new state is set. The checks that need the current
record (the kind of a live record, expected_version) are made in the same query, which then
writes nothing and reports the conflict; the caller raises, rolling the transaction back.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.domain.kernel.errors import Conflict
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.domain.memory.fields import PreparedMemory
from app.domain.memory.locate import LIVE
from app.domain.memory.owner import CHANGE, owned, owner, owner_params
from app.graph.change_feed import note_change
from app.graph.executor import Tx
from app.graph.fragments import lock, merge_agent
from app.graph.values import plain
from app.model.enums import ChangeAction
from app.model.search_index import HIDDEN_INDEX_PROPERTIES, SHOWN_INDEX_PROPERTIES

# The superseded state a MemoryVersion keeps (besides its identity and timestamps).
VERSIONED = (
    "kind",
    "memory_type",
    "text",
    "content",
    "content_uri",
    "content_sha256",
    "content_size",
    "tags",
    "priority",
    "source_agent",
    "expires_at",
    "active",
    "procedure_type",
)
ARCHIVE = (
    "{"
    + ", ".join(f"{name}: r.{name}" for name in VERSIONED)
    + ", id: $version_id, client_id: r.client_id, record_id: r.id, version: r.version,"
    " valid_from: r.updated_at, created_at: $now, updated_at: $now}"
)
# What a write leaves as it was (all else it sets from $changes): the record comes back as
# these and the state written, not as a projection of every property (a quarter of the
# upsert's time in Neo4j).
KEPT = ("id", "created_at", "version", *sorted(SHOWN_INDEX_PROPERTIES))
KEPT_MAP = "r {" + ", ".join(f".{name}" for name in KEPT) + "}"
# The record's agent (created on first use, as a cycle creates it) REMEMBERED it, so that
# "everything agent X remembered" is a traversal (Agent.memories). The agent is a part of the
# namespace, which an upsert keeps, so a record has one such link, created with the record;
# later writes of its key MERGE it, which only finds it. CREATE, not MERGE, for a new record: a
# MERGE that creates takes both nodes' write locks, and every write of one agent waited on its
# node (8 concurrent writers of one agent: half the writes per second of writers of none).
AGENT = merge_agent(agent_name="$agent")
CREATE_RECORD = f"""
CREATE (r:MemoryRecord)
SET r = $props
CALL (r) {{
  WITH r WHERE r.agent IS NOT NULL
  {AGENT}
  CREATE (a)-[:REMEMBERED]->(r)
}}
RETURN r.id AS id
"""
UPSERT_KEYED = f"""
MERGE (r:MemoryRecord {{client_id: $client_id, namespace: $namespace, key: $key}})
ON CREATE SET r.id = $id, r.created_at = $now, r.updated_at = $now, r.version = 0,
  r.active = false, r.kind = $kind, r.priority = 5
// MERGE locks only what it creates: lock a found record before reading its state.
{lock("r")}
WITH r, r.version AS previous,
     r.version > 0 AND {LIVE} AS live
WITH r, previous, live, CASE WHEN live THEN previous ELSE 0 END AS current
WITH r, previous, live, current,
     CASE WHEN live AND r.kind <> $kind THEN r.kind END AS held_kind,
     $expected IS NOT NULL AND $expected <> current AS stale,
     CASE WHEN previous > 0 AND NOT {owned("r")} THEN {owner("r")} END AS held_by
WITH r, previous, live, current, held_kind, stale, held_by,
     held_kind IS NULL AND NOT stale AND held_by IS NULL AS ok
CALL (r, previous, ok) {{
  WITH r WHERE ok AND previous > 0
  CREATE (r)-[:HAS_VERSION]->(v:MemoryVersion)
  SET v = {ARCHIVE}
}}
FOREACH (_ IN CASE WHEN ok THEN [1] ELSE [] END |
  SET r += $changes, r.version = previous + 1)
WITH *
CALL (r, ok, previous) {{
  WITH r, previous WHERE ok AND r.agent IS NOT NULL
  {AGENT}
  FOREACH (_ IN CASE WHEN previous = 0 THEN [1] ELSE [] END | CREATE (a)-[:REMEMBERED]->(r))
  FOREACH (_ IN CASE WHEN previous > 0 THEN [1] ELSE [] END | MERGE (a)-[:REMEMBERED]->(r))
}}
RETURN {KEPT_MAP} AS kept, previous, live, current, held_kind, stale, held_by
"""


def stored(written: dict[str, Any], kept: dict[str, Any]) -> dict[str, Any]:
    """The record as RECORD_MAP returns it after a write of `written` (a null removes the
    property) onto a node whose other shown properties are `kept`."""
    present = {k: v for k, v in written.items() if v is not None}
    present |= {k: v for k, v in kept.items() if v is not None}
    return plain(present | dict.fromkeys(HIDDEN_INDEX_PROPERTIES))


@dataclass(frozen=True)
class Written:
    record: dict[str, Any]
    change: str  # "create", "update" or "revive" (the key was forgotten or expired)

    def note(self, client_id: str, parent_id: str | None) -> None:
        """The change feed's entry: a revived key is created again, as it was gone."""
        action = ChangeAction.UPDATED if self.change == "update" else ChangeAction.CREATED
        note_change(client_id, "MemoryRecord", self.record["id"], action, parent_id=parent_id)


def _conflict(memory: PreparedMemory, row: dict[str, Any]) -> Conflict | None:
    if row["stale"]:
        return Conflict(
            f"the record is at version {row['current']}, not expected_version "
            f"{memory.expected_version}; recall it and retry",
            version=row["current"],
        )
    if row["held_kind"] is not None:
        return Conflict(
            f"key {memory.key!r} in namespace {memory.namespace!r} holds a "
            f"{row['held_kind']} record; forget it first or use another key",
            id=row["kept"]["id"],
        )
    return None


def _agent_params(base: dict[str, Any], memory: PreparedMemory, now: datetime) -> dict[str, Any]:
    """What AGENT needs: the client, the agent's name, an id should it be new, the clock."""
    agent = memory.state.get("agent")
    return {"client_id": base["client_id"], "agent": agent, "agent_id": new_id(), "now": now}


def live_state(principal: Principal, memory: PreparedMemory, now: datetime) -> dict[str, Any]:
    """What a write sets on the record: its own state, identity, and live from `now`."""
    base = {"client_id": principal.client_id, "namespace": memory.namespace, "key": memory.key}
    return memory.state | base | {"active": True, "deleted_at": None, "updated_at": now}


def new_record(principal: Principal, memory: PreparedMemory, now: datetime) -> dict[str, Any]:
    """Every property of a new record (version 1); the legacy importers write these too."""
    return live_state(principal, memory, now) | {"id": new_id(), "version": 1, "created_at": now}


async def write_memory(
    tx: Tx,
    *,
    principal: Principal,
    memory: PreparedMemory,
    now: datetime,
    parent_id: str | None = None,
) -> Written:
    """Create the record, or upsert the one at (namespace, key), in this transaction (one
    query), noted for the change feed under `parent_id` (a session entry's session). Raises
    CONFLICT (the caller's transaction must then roll back)."""
    written = await _written(tx, principal, memory, now)
    written.note(principal.client_id, parent_id)
    return written


async def _written(tx: Tx, principal: Principal, memory: PreparedMemory, now: datetime) -> Written:
    base = {"client_id": principal.client_id, "namespace": memory.namespace, "key": memory.key}
    fresh = live_state(principal, memory, now)
    if memory.key is None:
        if memory.expected_version not in (None, 0):
            raise Conflict("a record without a key is always new: expected_version must be 0")
        props = new_record(principal, memory, now)
        await tx.run(CREATE_RECORD, {"props": props} | _agent_params(base, memory, now))
        return Written(stored(props, {}), "create")
    params = (
        base
        | owner_params(principal)
        | {
            "id": new_id(),
            "version_id": new_id(),
            "kind": memory.kind.value,
            "expected": memory.expected_version,
            "changes": fresh,
        }
        | _agent_params(base, memory, now)
    )
    row = plain((await tx.run(UPSERT_KEYED, params))[0])
    principal.require_agent(row["held_by"], what=CHANGE)  # another agent's record: FORBIDDEN
    conflict = _conflict(memory, row)
    if conflict is not None:
        raise conflict
    change = "create" if row["previous"] == 0 else "update" if row["live"] else "revive"
    return Written(stored(params["changes"], row["kept"]), change)
