"""Who is calling: resolved from the API key, handed to every repository call."""

from __future__ import annotations

from dataclasses import dataclass

from app.domain.errors import Forbidden
from app.model.enums import Role

WRITER_ROLES = frozenset({Role.AGENT, Role.REVIEWER, Role.ADMIN})


@dataclass(frozen=True)
class Principal:
    client_id: str
    role: Role
    key_id: str
    agent_name: str | None = None

    @property
    def actor(self) -> str:
        """How audit fields name this caller."""
        return f"{self.role.value}:{self.agent_name or self.key_id}"

    def require(self, *roles: Role) -> None:
        if self.role not in roles:
            allowed = ", ".join(sorted(role.value for role in roles))
            raise Forbidden(
                f"role {self.role.value!r} may not do this; it needs one of: {allowed}",
                role=self.role.value,
            )

    def require_writer(self) -> None:
        self.require(*WRITER_ROLES)
