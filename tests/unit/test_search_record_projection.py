"""The projection of a search's records compiled from the caller's selection (app/api/search/
shown.py): each record type's own fields, with what search reads of every record."""

from __future__ import annotations

from app.api.search.shown import compiled
from app.api.types.base import NODE_TYPES, every_node_type
from app.graph.selection import Field
from app.model.labels import SEARCHABLES
from app.retrieval import search_queries
from app.retrieval.keyword import candidates_query

every_node_type()  # the compiler's names come from the registered node types

SELECTED = [
    Field("__typename"),
    Field("id", type_condition="Node"),
    Field("externalRef", type_condition="ConversationEvent"),
    Field("createdAt", type_condition="ConversationEvent"),
    Field("thread", children=(Field("id"),), type_condition="ConversationEvent"),
    Field("content", alias="body", type_condition="MemoryRecord"),
]


def branches(projection: str, params: dict[str, object]) -> dict[str, str]:
    """Each WHEN's label (from its parameter) and its projection."""
    inner = projection.removeprefix("CASE n.record_type WHEN ")
    inner = inner.removesuffix(" ELSE n {.id, .record_type} END")
    found = {}
    for part in inner.split(" WHEN "):
        name, shown = part.split(" THEN ", 1)
        found[str(params[name.removeprefix("$")])] = shown
    return found


def test_each_record_type_shows_its_own_selection() -> None:
    shown = compiled(SELECTED, client_id="c1")
    assert shown.params["client_id"] == "c1"
    by_label = branches(shown.projection, dict(shown.params))
    assert list(by_label) == list(SEARCHABLES)
    event = by_label["ConversationEvent"]
    assert event.startswith("n {created_at: toString(n.created_at), .external_ref, .id, ")
    assert ".record_type" in event and "`thread`: COLLECT { MATCH " in event
    assert "n1.client_id = $client_id" in event  # the related thread: the caller's only
    assert by_label["MemoryRecord"] == "n {.content, .id, .record_type}"
    # A type nothing was selected on: its id, what search reads of it and what its resolver
    # fields read (Lesson: its decay, from its confidence and evidence).
    lesson = by_label["Lesson"].removeprefix("n {").removesuffix("}").split(", ")
    names = {part.split(":")[0].removeprefix(".") for part in lesson}
    assert names == {"id", "record_type", *NODE_TYPES["Lesson"].__needs__}
    assert "embedding" not in shown.projection and ".text" not in shown.projection


def test_own_fields_only_are_projected_for_every_candidate() -> None:
    """Without a relationship field the selection is cheap for every candidate: the signal
    queries return it beside what ranking needs; with one, only the kept records are read."""
    own = compiled([f for f in SELECTED if f.name != "thread"], client_id="c1")
    related = compiled(SELECTED, client_id="c1")
    assert own.per_candidate and not related.per_candidate
    assert search_queries.ranked(related) == search_queries.RANKED
    assert search_queries.ranked(None) == search_queries.RANKED
    ranked = search_queries.ranked(own)
    assert ranked == (
        f"{search_queries.RANKED[:-1]}, {search_queries.SHOWN_KEY}: {own.projection}}}"
    )
    # Both signal queries return it.
    assert ranked in candidates_query("true", ranked)
    assert ranked in search_queries.vector_query("true", typed=False, shown=ranked)
