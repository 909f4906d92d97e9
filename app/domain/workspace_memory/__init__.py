"""Workspace memory (seed 002): the context every agent of a client shares, keyed per client
(brand voice, ideal customer profiles, preferences, custom values)."""

from app.domain.workspace_memory.repository import (
    delete_workspace_memory,
    get_workspace_memory,
    put_workspace_memory,
)

__all__ = ["delete_workspace_memory", "get_workspace_memory", "put_workspace_memory"]
