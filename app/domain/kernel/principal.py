"""Who is calling: resolved from the API key, handed to every repository call."""

from __future__ import annotations

from dataclasses import dataclass

from app.domain.kernel.errors import Forbidden
from app.model.enums import Role

WRITER_ROLES = frozenset({Role.AGENT, Role.REVIEWER, Role.ADMIN})
# The humans' roles: approve plans and assets, edit the rules agents work under.
REVIEWER_ROLES = (Role.REVIEWER, Role.ADMIN)


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

    @property
    def bound_agent(self) -> str | None:
        """The one agent this key may act as (agent keys); None: it may act for any agent."""
        return self.agent_name if self.role is Role.AGENT else None

    def require_agent(self, agent: str | None, *, what: str = "act as agent") -> None:
        """FORBIDDEN when an agent key would act as (or on what belongs to) another agent.

        `agent` is a requested agent name or the owner of an existing record; None (no agent
        named, or a record no agent owns) is always allowed.
        """
        bound = self.bound_agent
        if agent is None or bound is None or agent == bound:
            return
        raise Forbidden(
            f"this API key is bound to agent {bound!r}: it may not {what} {agent!r}; use a key "
            f"of agent {agent!r}, or a reviewer or admin key",
            bound_agent=bound,
            agent=agent,
        )

    def acting_agent(self, requested: str | None) -> str | None:
        """The agent a write acts as: the requested one (an agent key only its own), else the
        key's agent. Every write that names an agent, or defaults to one, goes through here."""
        self.require_agent(requested)
        return self.agent_name if requested is None else requested
