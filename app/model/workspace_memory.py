"""Seed 002's workspace memory: the context every agent of a client shares (the client is the
workspace): its brand voice, ideal customer profiles, preferences and other keyed values."""

from __future__ import annotations

from neomodel import IntegerProperty, JSONProperty, StringProperty

from app.model import enums as e
from app.model.facts import LabelFacts, Searchable
from app.model.nodes import Record, enum_property


class WorkspaceMemory(Record):
    """One keyed value of the client's shared context; `key` is unique per client, so a write
    with a known key replaces the value (and counts a version)."""

    facts = LabelFacts(
        graphql="app.api.types.workspace_memory",
        roots=("workspace_memory", "workspace_memories"),
        searchable=Searchable(("key", "value")),
    )

    key = StringProperty(required=True)
    memory_type = enum_property(e.WorkspaceMemoryType, required=True, index=True)
    value = JSONProperty(required=True)
    metadata = JSONProperty()
    priority = IntegerProperty(required=True)  # 1-10: the order within a type in getContext
    version = IntegerProperty(required=True)


WORKSPACE_MEMORY_MODEL: tuple[type[Record], ...] = (WorkspaceMemory,)
