"""API keys: random secrets shown once, stored only as SHA-256 hashes, bound to client and role."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from app.domain.errors import ValidationFailed
from app.domain.ids import new_id
from app.domain.principal import Principal
from app.graph.executor import GraphExecutor
from app.model.enums import Role

KEY_PATTERN = re.compile(r"^am_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$")
AGENT_NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

CREATE_KEY = """
MATCH (c:Client {id: $client_id})
CREATE (k:ApiKey {id: $id, client_id: $client_id, key_hash: $key_hash, prefix: $prefix,
                  role: $role, agent_name: $agent_name, revoked: false,
                  created_at: datetime(), updated_at: datetime()})
CREATE (c)-[:HAS_KEY]->(k)
RETURN k.id AS id
"""
FIND_KEY = """
MATCH (k:ApiKey {key_hash: $key_hash})
WHERE NOT k.revoked
RETURN k.id AS id, k.client_id AS client_id, k.role AS role, k.agent_name AS agent_name
"""


@dataclass(frozen=True)
class IssuedKey:
    key_id: str
    secret: str
    principal: Principal


def generate_secret() -> str:
    return f"am_{secrets.token_hex(4)}_{secrets.token_urlsafe(32)}"


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def looks_like_key(secret: str) -> bool:
    return bool(KEY_PATTERN.match(secret))


def same_hash(left: str, right: str) -> bool:
    return hmac.compare_digest(left, right)


async def issue_key(
    graph: GraphExecutor, *, client_id: str, role: Role, agent_name: str | None = None
) -> IssuedKey:
    if agent_name is not None and not AGENT_NAME_PATTERN.match(agent_name):
        raise ValidationFailed("agent_name: letters, digits, '_', '.', '-' (max 64)")
    if role is Role.AGENT and agent_name is None:
        raise ValidationFailed("an agent key needs an agent_name (who the agent is)")
    secret = generate_secret()
    key_id = new_id()
    rows = await graph.write(
        CREATE_KEY,
        {
            "client_id": client_id,
            "id": key_id,
            "key_hash": hash_secret(secret),
            "prefix": secret[:11],
            "role": role.value,
            "agent_name": agent_name,
        },
    )
    if not rows:
        raise ValidationFailed(f"client {client_id} does not exist; create the client first")
    principal = Principal(client_id=client_id, role=role, key_id=key_id, agent_name=agent_name)
    return IssuedKey(key_id=key_id, secret=secret, principal=principal)


async def authenticate(graph: GraphExecutor, *, secret: str) -> Principal | None:
    """The principal for a presented key, or None for anything unknown, malformed or revoked."""
    if not looks_like_key(secret):
        return None
    rows = await graph.read(FIND_KEY, {"key_hash": hash_secret(secret)})
    if not rows:
        return None
    row = rows[0]
    return Principal(
        client_id=row["client_id"],
        role=Role(row["role"]),
        key_id=row["id"],
        agent_name=row["agent_name"],
    )
