"""Managing API keys: list (never the hash), revoke, rotate (a new secret, the old key revoked in
the same transaction). `client_id` scopes every call: another client's key id is answered like
a missing one; None is the operator's scope (the CLI), any client.

A revoked key is refused by every API process once its revocation (or rotation) is answered: the
answer waits out the time a process may trust a key it looked up (TRUSTED_FOR_S, from the
lookup's start; app/api/edge/key_cache.py), whichever door revoked it. An expired key is refused on
every request.
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from app.domain.kernel.errors import Conflict, ValidationFailed
from app.domain.kernel.ids import check_id
from app.domain.kernel.records import missing
from app.domain.keys.repository import (
    CREATE_KEY,
    TRUSTED_FOR_S,
    IssuedKey,
    KeyStatus,
    issued,
    key_params,
    key_status,
)
from app.graph.change_feed import Changed, note_all, note_change
from app.graph.executor import GraphExecutor, Record, Tx
from app.graph.fragments import lock
from app.graph.values import plain
from app.model.enums import ChangeAction, Role
from app.request_deadline import deadline_paused

# What a listing shows of a key: everything but its hash.
KEY_MAP = """k {.id, .client_id, .prefix, .role, .agent_name, .revoked, .revoked_at, .expires_at,
            .last_used_at, .rotated_from, .created_at, .updated_at}"""
IN_SCOPE = "($client_id IS NULL OR k.client_id = $client_id)"
LIST_KEYS = f"""
MATCH (k:ApiKey {{client_id: $client_id}})
WHERE $include_revoked OR NOT k.revoked
RETURN {KEY_MAP} AS key ORDER BY k.created_at, k.id
"""
# A revoked key is left as it is: revoking twice writes nothing.
REVOKE_KEY = f"""
MATCH (k:ApiKey {{id: $id}}) WHERE {IN_SCOPE}
WITH k, coalesce(k.revoked, false) AS was_revoked
FOREACH (_ IN CASE WHEN was_revoked THEN [] ELSE [1] END |
  SET k.revoked_at = coalesce(k.revoked_at, $now), k.updated_at = $now, k.revoked = true)
RETURN {KEY_MAP} AS key, was_revoked
"""
LOCK_KEY = f"""
MATCH (k:ApiKey {{id: $id}}) WHERE {IN_SCOPE}
{lock("k")}
RETURN {KEY_MAP} AS key
"""
GET_KEY = f"MATCH (k:ApiKey {{id: $id}}) WHERE {IN_SCOPE} RETURN {KEY_MAP} AS key"
CLIENT_BY_NAME = "MATCH (c:Client {name: $name}) RETURN c.id AS id"
DURATION = re.compile(r"^(\d+)([smhdw]?)$")
UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def expires_in(text: str, *, now: datetime | None = None) -> datetime:
    """`30d`, `12h`, `90m`, `3600s` or plain seconds from now, as an instant."""
    found = DURATION.match(text.strip())
    if found is None or int(found.group(1)) == 0:
        raise ValidationFailed(
            f"expires-in {text!r}: a positive number with an optional unit s, m, h, d or w "
            "(e.g. 30d)",
            field="expires_in",
        )
    seconds = int(found.group(1)) * UNITS[found.group(2)]
    return (now or datetime.now(UTC)) + timedelta(seconds=seconds)


async def client_id_of(graph: GraphExecutor, name: str) -> str:
    rows = await graph.read(CLIENT_BY_NAME, {"name": name})
    if not rows:
        raise ValidationFailed(f"no client named {name!r}", field="client")
    return str(rows[0]["id"])


async def list_keys(
    graph: GraphExecutor, *, client_id: str, include_revoked: bool = True
) -> list[dict[str, Any]]:
    params = {"client_id": client_id, "include_revoked": include_revoked}
    return [dict(plain(row["key"])) for row in await graph.read(LIST_KEYS, params)]


async def get_key(graph: GraphExecutor, *, client_id: str | None, key_id: str) -> dict[str, Any]:
    checked = check_id(key_id, field="key_id")
    rows = await graph.read(GET_KEY, {"id": checked, "client_id": client_id})
    if not rows:
        raise missing("API key", checked)
    return dict(plain(rows[0]["key"]))


async def revoke_key(graph: GraphExecutor, *, client_id: str | None, key_id: str) -> dict[str, Any]:
    """The key, revoked from now on (revoking twice changes nothing)."""
    checked = check_id(key_id, field="key_id")
    params = {"id": checked, "client_id": client_id, "now": datetime.now(UTC)}
    rows = await graph.write(REVOKE_KEY, params, changed=_revoked)
    if not rows:
        raise missing("API key", checked)
    await _outlast_trusted_lookups()
    return dict(plain(rows[0]["key"]))


def _revoked(rows: list[Record]) -> list[Changed]:
    """The keys REVOKE_KEY revoked (one revoked already was not written)."""
    return [
        Changed(row["key"]["client_id"], "ApiKey", row["key"]["id"], ChangeAction.UPDATED)
        for row in rows
        if not row["was_revoked"]
    ]


async def rotate_key(
    graph: GraphExecutor,
    *,
    client_id: str | None,
    key_id: str,
    expires_at: datetime | None = None,
) -> IssuedKey:
    """A new secret with the same client, role and agent (shown once; `rotated_from` names the
    old key), and the old key revoked, in one transaction. A revoked key is not rotated.

    `expires_at` None keeps the old key's expiry: rotation replaces the secret, not the
    lifetime (an expired key's replacement needs a new one; a permanent key is a new key)."""
    checked = check_id(key_id, field="key_id")
    scope = {"id": checked, "client_id": client_id}

    async def work(tx: Tx) -> IssuedKey:
        rows = await tx.run(LOCK_KEY, scope)
        if not rows:
            raise missing("API key", checked)
        old = plain(rows[0]["key"])
        if old["revoked"]:
            raise Conflict(f"API key {checked} is revoked; create a new key instead", id=checked)
        secret, params = key_params(
            client_id=old["client_id"],
            role=Role(old["role"]),
            agent_name=old["agent_name"],
            expires_at=_rotated_expiry(old, expires_at),
        )
        await tx.run(CREATE_KEY, params | {"rotated_from": checked})
        note_change(params["client_id"], "ApiKey", params["id"], ChangeAction.CREATED)
        note_all(_revoked, await tx.run(REVOKE_KEY, scope | {"now": params["now"]}))
        return issued(secret, params)

    rotated = await graph.in_transaction(work)
    await _outlast_trusted_lookups()
    return rotated


async def _outlast_trusted_lookups() -> None:
    """Every lookup that could have found the key active began before the revocation committed;
    after this, no process trusts one (app/api/edge/key_cache.py). Outside any request deadline: a
    revocation that committed is answered as done."""
    with deadline_paused():
        await asyncio.sleep(TRUSTED_FOR_S)


def _rotated_expiry(old: dict[str, Any], given: datetime | None) -> datetime | None:
    kept: datetime | None = old["expires_at"]
    if given is not None or kept is None:
        return given
    if key_status(old["revoked"], kept, datetime.now(UTC)) is KeyStatus.EXPIRED:
        raise ValidationFailed(
            f"API key {old['id']} expired at {kept.isoformat()}: give its replacement an "
            "expiry (expiresAt or expiresInSeconds; CLI --expires-in or --expires-at)",
            field="expires_at",
        )
    return kept
