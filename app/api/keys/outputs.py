"""What the API shows of a key: never its hash; its secret only once, when it is made."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import strawberry

from app.domain.keys import KeyStatus, key_status
from app.model.enums import Role

# The domain's statuses, as the GraphQL enum ApiKeyStatus.
strawberry.enum(KeyStatus, name="ApiKeyStatus", description="Whether a key authenticates now.")


@strawberry.type(description="An API key of the caller's client (its secret is never shown).")
class ApiKey:
    id: strawberry.ID
    prefix: str = strawberry.field(description="The secret's first characters, e.g. am_1a2b3c4d.")
    role: Role
    agent_name: str | None = strawberry.field(
        description="The agent an agent key acts as (and only it)."
    )
    status: KeyStatus
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    last_used_at: datetime | None = strawberry.field(
        description="Approximate: written at most once a minute per key."
    )
    rotated_from: strawberry.ID | None = strawberry.field(
        description="The key this one replaced (rotateApiKey)."
    )

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> ApiKey:
        expires_at = row.get("expires_at")
        return cls(
            id=strawberry.ID(row["id"]),
            prefix=row["prefix"],
            role=Role(row["role"]),
            agent_name=row.get("agent_name"),
            status=key_status(row.get("revoked"), expires_at, datetime.now(UTC)),
            created_at=row["created_at"],
            expires_at=expires_at,
            revoked_at=row.get("revoked_at"),
            last_used_at=row.get("last_used_at"),
            rotated_from=row.get("rotated_from"),
        )


@strawberry.type(description="A new key: its secret is shown here once and stored nowhere.")
class IssuedApiKey:
    key: ApiKey
    secret: str = strawberry.field(description="Send it as 'Authorization: Bearer <secret>'.")
