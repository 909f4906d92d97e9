"""Agent episodes (seed 000, 7): start, link what was read and written, append tool calls,
close."""

from app.domain.episodes.repository import (
    append_tool_calls,
    close_episode,
    link_records,
    log_url,
    start_episode,
    tool_call_log_url,
)

__all__ = [
    "append_tool_calls",
    "close_episode",
    "link_records",
    "log_url",
    "start_episode",
    "tool_call_log_url",
]
