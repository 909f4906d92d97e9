"""Agent rules: an agent's name (no I/O here). Episodes, task contexts and agent keys name
agents the same way."""

from __future__ import annotations

from typing import Any

from app.domain.kernel.field_rules import check_pattern
from app.domain.keys import AGENT_NAME_PATTERN


def check_agent_name(name: Any) -> str:
    """Agent names follow API keys' agent names: letters, digits, '_', '.', '-' (max 64)."""
    rule = "agent name: letters, digits, '_', '.', '-' (max 64), starting with a letter or digit"
    return check_pattern(name, AGENT_NAME_PATTERN, field="agent_name", rule=rule)
