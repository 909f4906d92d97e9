"""Agent state scoped to one session (seed 004 agent_states with a session_id), beside the
agent's global state (Agent.state): one per (client, agent, session), replaced as a whole under
optimistic concurrency, hidden once expired and purged by the sweeper."""

from __future__ import annotations

from neomodel import (
    BooleanProperty,
    DateTimeProperty,
    IntegerProperty,
    JSONProperty,
    StringProperty,
    ZeroOrOne,
)

from app.model.facts import LabelFacts
from app.model.nodes import Record
from app.model.relationships import RelationshipFrom


class AgentSessionState(Record):
    """An agent's state in one session (app/domain/agents/session_state.py)."""

    # Read by (session, agent) (agentSessionState) and through Agent.sessionStates and
    # MemorySession.agentStates, not by id: no root fields.
    facts = LabelFacts(graphql="app.api.types.session_state", forgettable=True)

    agent_name = StringProperty(required=True)
    session_id = StringProperty(required=True)
    state = JSONProperty(required=True)
    version = IntegerProperty(required=True)
    expires_at = DateTimeProperty(index=True)
    # Forgettable records (app/model/facts.py) are hidden from compiled reads once expired or
    # inactive; a cleared state is deleted outright, so this stays true.
    active = BooleanProperty(required=True)

    agent = RelationshipFrom(
        "Agent", "HAS_SESSION_STATE", ZeroOrOne, doc="The agent whose state it is."
    )
    session = RelationshipFrom(
        "MemorySession", "HAS_AGENT_STATE", ZeroOrOne, doc="The session it is scoped to."
    )


SESSION_STATE_MODEL: tuple[type[Record], ...] = (AgentSessionState,)
