"""Key management for admins, scoped by the caller's client: another client's key id is
NOT_FOUND, like a missing one. An admin may rotate the key it calls with (the answer carries
the new secret) but not revoke it, so that no request locks its client out by mistake."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import strawberry

from app.api.context import Info
from app.api.keys.outputs import ApiKey, IssuedApiKey
from app.domain import keys
from app.domain.kernel.errors import Forbidden, ValidationFailed
from app.domain.kernel.principal import Principal
from app.domain.keys import IssuedKey, issue_key
from app.model.enums import Role

EXPIRY = "expiresAt, or expiresInSeconds from now (at most one; none: never expires)."


def _admin(info: Info) -> Principal:
    principal = info.context.caller()
    principal.require(Role.ADMIN)
    return principal


def _expiry(expires_at: datetime | None, expires_in_seconds: int | None) -> datetime | None:
    if expires_in_seconds is None:
        return expires_at
    if expires_at is not None:
        raise ValidationFailed("give expiresAt or expiresInSeconds, not both", field="expires_at")
    if expires_in_seconds <= 0:
        raise ValidationFailed("expiresInSeconds must be positive", field="expires_in_seconds")
    return datetime.now(UTC) + timedelta(seconds=expires_in_seconds)


async def _issued(info: Info, issued: IssuedKey) -> IssuedApiKey:
    row = await keys.get_key(
        info.context.graph, client_id=issued.principal.client_id, key_id=issued.key_id
    )
    return IssuedApiKey(key=ApiKey.from_row(row), secret=issued.secret)


@strawberry.input(description=f"A new key of the caller's client. {EXPIRY}")
class CreateApiKeyInput:
    role: Role
    agent_name: str | None = strawberry.field(
        default=None, description="Required for role AGENT: the one agent the key acts as."
    )
    expires_at: datetime | None = None
    expires_in_seconds: int | None = None


@strawberry.type
class ApiKeyQueries:
    @strawberry.field(description="The client's API keys, oldest first (admins).")
    async def api_keys(self, info: Info, include_revoked: bool = True) -> list[ApiKey]:
        principal = _admin(info)
        rows = await keys.list_keys(
            info.context.graph, client_id=principal.client_id, include_revoked=include_revoked
        )
        return [ApiKey.from_row(row) for row in rows]


@strawberry.type
class ApiKeyMutations:
    @strawberry.mutation(description="Create a key (admins); its secret is shown once.")
    async def create_api_key(self, info: Info, input: CreateApiKeyInput) -> IssuedApiKey:
        principal = _admin(info)
        issued = await issue_key(
            info.context.graph,
            client_id=principal.client_id,
            role=input.role,
            agent_name=input.agent_name,
            expires_at=_expiry(input.expires_at, input.expires_in_seconds),
        )
        return await _issued(info, issued)

    @strawberry.mutation(
        description="Revoke a key (admins): every API process refuses it within a second. "
        "Revoking twice changes nothing; the key you call with cannot be revoked (rotate it)."
    )
    async def revoke_api_key(self, info: Info, id: strawberry.ID) -> ApiKey:
        principal = _admin(info)
        if str(id).strip().lower() == principal.key_id:
            raise Forbidden(
                "this is the key you are calling with: revoke it with another admin key, or "
                "rotateApiKey to replace it",
                id=principal.key_id,
            )
        row = await keys.revoke_key(info.context.graph, client_id=principal.client_id, key_id=id)
        return ApiKey.from_row(row)

    @strawberry.mutation(
        description="Replace a key's secret (admins): a new key with the same role and agent "
        "(rotatedFrom names the old one), the old key revoked at once. expiresAt, or "
        "expiresInSeconds from now (at most one); none keeps the old key's expiry (an expired "
        "key's replacement needs one)."
    )
    async def rotate_api_key(
        self,
        info: Info,
        id: strawberry.ID,
        expires_at: datetime | None = None,
        expires_in_seconds: int | None = None,
    ) -> IssuedApiKey:
        principal = _admin(info)
        issued = await keys.rotate_key(
            info.context.graph,
            client_id=principal.client_id,
            key_id=id,
            expires_at=_expiry(expires_at, expires_in_seconds),
        )
        return await _issued(info, issued)
