"""Identity: clients (tenants) and their API keys: issue, authenticate, list, revoke, rotate."""

from app.domain.keys.admin import (
    client_id_of,
    expires_in,
    get_key,
    list_keys,
    revoke_key,
    rotate_key,
)
from app.domain.keys.clients import ensure_client
from app.domain.keys.repository import (
    AGENT_NAME_PATTERN,
    FoundKey,
    IssuedKey,
    KeyStatus,
    authenticate,
    hash_secret,
    issue_key,
    key_status,
    lookup,
    mark_used,
)

__all__ = [
    "AGENT_NAME_PATTERN",
    "FoundKey",
    "IssuedKey",
    "KeyStatus",
    "authenticate",
    "client_id_of",
    "ensure_client",
    "expires_in",
    "get_key",
    "hash_secret",
    "issue_key",
    "key_status",
    "list_keys",
    "lookup",
    "mark_used",
    "revoke_key",
    "rotate_key",
]
