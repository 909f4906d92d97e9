"""Agents (seeds 000-004): the Agent repository and its names, agent cycles and resumable state,
learning from feedback, subjects and their relationship context, get_context, versioned
directives and config overrides, and recall for an agent (memories merged with action results)."""

from app.domain.agents.config import set_agent_config
from app.domain.agents.context import get_context
from app.domain.agents.cycles import complete_cycle, record_cycle
from app.domain.agents.learning import agent_patterns, feedback_history, learn_from_feedback
from app.domain.agents.recall import recall_for_agent
from app.domain.agents.repository import (
    acting_agent_name,
    agent_name_for,
    ensure_agent,
    get_agent_by_name,
)
from app.domain.agents.rules import check_agent_name
from app.domain.agents.session_state import (
    agent_session_state,
    clear_agent_session_state,
    save_agent_session_state,
)
from app.domain.agents.state import save_agent_state
from app.domain.agents.subjects import (
    get_relationship,
    get_subject,
    set_relationship,
    touch_relationship,
    upsert_subject,
)

__all__ = [
    "acting_agent_name",
    "agent_name_for",
    "agent_patterns",
    "agent_session_state",
    "check_agent_name",
    "clear_agent_session_state",
    "complete_cycle",
    "ensure_agent",
    "feedback_history",
    "get_agent_by_name",
    "get_context",
    "get_relationship",
    "get_subject",
    "learn_from_feedback",
    "recall_for_agent",
    "record_cycle",
    "save_agent_session_state",
    "save_agent_state",
    "set_agent_config",
    "set_relationship",
    "touch_relationship",
    "upsert_subject",
]
