"""API keys: random secrets shown once, stored only as SHA-256 hashes, bound to client and role,
optionally expiring; revoked or expired keys authenticate nothing (listing, revoking and
rotating: admin.py)."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum
from typing import Any

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.graph.change_feed import BOOKKEEPING, Changed
from app.graph.executor import GraphExecutor
from app.graph.values import plain
from app.model.enums import ChangeAction, Role

KEY_PATTERN = re.compile(r"^am_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$")
AGENT_NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

CREATE_KEY = """
MATCH (c:Client {id: $client_id})
CREATE (k:ApiKey {id: $id, client_id: $client_id, key_hash: $key_hash, prefix: $prefix,
                  role: $role, agent_name: $agent_name, revoked: false, expires_at: $expires_at,
                  rotated_from: $rotated_from, created_at: $now, updated_at: $now})
CREATE (c)-[:HAS_KEY]->(k)
RETURN k.id AS id
"""
# One read on the unique key_hash constraint's index (migration 0001); whether the key
# authenticates is `key_status`'s to say.
FIND_KEY = """
MATCH (k:ApiKey {key_hash: $key_hash})
RETURN k.id AS id, k.client_id AS client_id, k.role AS role, k.agent_name AS agent_name,
       k.revoked AS revoked, k.expires_at AS expires_at, k.last_used_at AS last_used_at
"""
TOUCH_KEY = "MATCH (k:ApiKey {id: $id}) SET k.last_used_at = $now"
# How long a process may answer with a key it looked up, counted from the lookup's start. A
# revocation is acknowledged only this long after it commits (admin.py), so once acknowledged,
# through whichever process or door, no process authenticates the key: every lookup that could
# have seen it active began before the commit, and its trust has run out.
TRUSTED_FOR_S = 0.5


class KeyStatus(Enum):
    ACTIVE = "active"
    EXPIRED = "expired"
    REVOKED = "revoked"


def key_status(revoked: bool | None, expires_at: datetime | None, now: datetime) -> KeyStatus:
    """Whether a stored key authenticates at `now`: the one statement of it (lookups, the
    per-process cache, listings). A key without its revoked flag is refused."""
    if revoked is not False:
        return KeyStatus.REVOKED
    if expires_at is not None and expires_at <= now:
        return KeyStatus.EXPIRED
    return KeyStatus.ACTIVE


@dataclass(frozen=True)
class IssuedKey:
    key_id: str
    secret: str
    principal: Principal
    expires_at: datetime | None = None


@dataclass(frozen=True)
class FoundKey:
    """A key that authenticated when it was looked up: who it is, until when, and when it was
    last marked used."""

    principal: Principal
    expires_at: datetime | None
    last_used_at: datetime | None

    def authenticates(self, now: datetime) -> bool:
        # Not revoked when looked up, at most TRUSTED_FOR_S ago (app/api/edge/key_cache.py).
        return key_status(False, self.expires_at, now) is KeyStatus.ACTIVE


def generate_secret() -> str:
    return f"am_{secrets.token_hex(4)}_{secrets.token_urlsafe(32)}"


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def looks_like_key(secret: str) -> bool:
    return bool(KEY_PATTERN.match(secret))


def same_hash(left: str, right: str) -> bool:
    return hmac.compare_digest(left, right)


def check_expiry(expires_at: datetime | None, *, now: datetime) -> datetime | None:
    if expires_at is None:
        return None
    if expires_at.tzinfo is None:
        raise ValidationFailed(
            "expires_at needs a time zone, e.g. 2027-01-31T00:00:00Z", field="expires_at"
        )
    if expires_at <= now:
        raise ValidationFailed("expires_at must be in the future", field="expires_at")
    return expires_at


def key_params(
    *, client_id: str, role: Role, agent_name: str | None, expires_at: datetime | None
) -> tuple[str, dict[str, Any]]:
    """A new secret and the CREATE_KEY parameters that store its hash (checked first)."""
    if agent_name is not None and not AGENT_NAME_PATTERN.match(agent_name):
        raise ValidationFailed("agent_name: letters, digits, '_', '.', '-' (max 64)")
    if role is Role.AGENT and agent_name is None:
        raise ValidationFailed("an agent key needs an agent_name (who the agent is)")
    now = datetime.now(UTC)
    secret = generate_secret()
    return secret, {
        "client_id": client_id,
        "id": new_id(),
        "key_hash": hash_secret(secret),
        "prefix": secret[:11],
        "role": role.value,
        "agent_name": agent_name,
        "expires_at": check_expiry(expires_at, now=now),
        "rotated_from": None,
        "now": now,
    }


def key_created(params: dict[str, Any], rows: list[dict[str, Any]]) -> list[Changed]:
    """The key CREATE_KEY made with `params` (none when its client does not exist)."""
    created = Changed(params["client_id"], "ApiKey", params["id"], ChangeAction.CREATED)
    return [created] if rows else []


def issued(secret: str, params: dict[str, Any]) -> IssuedKey:
    principal = Principal(
        client_id=params["client_id"],
        role=Role(params["role"]),
        key_id=params["id"],
        agent_name=params["agent_name"],
    )
    return IssuedKey(params["id"], secret, principal, params["expires_at"])


async def issue_key(
    graph: GraphExecutor,
    *,
    client_id: str,
    role: Role,
    agent_name: str | None = None,
    expires_at: datetime | None = None,
) -> IssuedKey:
    secret, params = key_params(
        client_id=client_id, role=role, agent_name=agent_name, expires_at=expires_at
    )
    rows = await graph.write(CREATE_KEY, params, changed=lambda rows: key_created(params, rows))
    if not rows:
        raise ValidationFailed(f"client {client_id} does not exist; create the client first")
    return issued(secret, params)


async def lookup(graph: GraphExecutor, *, secret: str) -> FoundKey | None:
    """The key that a presented secret names, if it authenticates now (None for anything
    unknown, malformed, revoked or expired)."""
    if not looks_like_key(secret):
        return None
    # From the leader: a revocation committed through any process must show at once.
    rows = await graph.read_latest(FIND_KEY, {"key_hash": hash_secret(secret)})
    if not rows:
        return None
    row = plain(rows[0])
    if key_status(row["revoked"], row["expires_at"], datetime.now(UTC)) is not KeyStatus.ACTIVE:
        return None
    principal = Principal(
        client_id=row["client_id"],
        role=Role(row["role"]),
        key_id=row["id"],
        agent_name=row["agent_name"],
    )
    return FoundKey(principal, row["expires_at"], row["last_used_at"])


async def authenticate(graph: GraphExecutor, *, secret: str) -> Principal | None:
    """The principal for a presented key, or None for anything unknown, malformed, revoked or
    expired."""
    found = await lookup(graph, secret=secret)
    return None if found is None else found.principal


async def mark_used(graph: GraphExecutor, *, key_id: str) -> None:
    params = {"id": key_id, "now": datetime.now(UTC)}
    await graph.write(TOUCH_KEY, params, changed=BOOKKEEPING)
