"""Which records are searchable, what text of theirs is indexed, and what filters they answer.

Every searchable node also carries the `Searchable` label once the embedding worker has seen
it: one vector index and one full-text index over that label serve every record type, both
filtered by client inside the index.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from app.graph.identifiers import Label

SEARCHABLE_LABEL = "Searchable"


@dataclass(frozen=True)
class SearchableSpec:
    label: str
    # Properties joined (in order, skipping empty ones) into the indexed text.
    text_fields: tuple[str, ...]
    # Filter values stored on the node at index time: name -> Cypher expression over `n`.
    # The expressions are constants of this module, never caller input.
    derived: dict[str, str] = field(default_factory=dict)
    # Conversation events are indexed as read in their conversation: see conversation_text.
    conversational: bool = False
    # A property holding the object-storage URI of text too long to keep inline: the worker
    # reads it from there when the inline text is empty.
    stored_text: str | None = None


_SPECS = (
    SearchableSpec("Plan", ("name", "summary"), {"plan_id": "n.id"}),
    SearchableSpec("PlanNode", ("title", "summary"), {"plan_id": "n.plan_id"}),
    SearchableSpec(
        "Asset",
        ("title", "summary"),
        {"plan_id": "head([(n)-[:FROM_BLUEPRINT]->(b:PlanNode) | b.plan_id])"},
    ),
    SearchableSpec("ConversationThread", ("summary_short",), {"thread_id": "n.id"}),
    SearchableSpec(
        "ConversationEvent",
        ("text", "metadata"),
        {"thread_id": "n.thread_id"},
        conversational=True,
        stored_text="text_uri",
    ),
    SearchableSpec("AgentEpisode", ("task_class", "output_summary"), {"agent": "n.agent_name"}),
    SearchableSpec("Lesson", ("statement",), {"scope": "n.scope"}),
    SearchableSpec("MemoryRecord", ("key", "text", "tags"), {"agent": "n.agent"}),
)

SEARCHABLE: dict[str, SearchableSpec] = {spec.label: spec for spec in _SPECS}
DERIVED_FILTERS = ("plan_id", "thread_id", "agent", "scope")

# What the embedding worker writes on a record (besides the Searchable label); never part of
# the record's own state.
INDEX_PROPERTIES = frozenset(
    {
        "record_type",
        "search_client",
        "search_text",
        "search_hash",
        "embedding",
        "embedding_model",
        "search_truncated",
        "embedded_at",
        "indexed_version",
        "index_error",
        "search_plan_id",
        "search_thread_id",
        "search_agent",
        "search_scope",
    }
)
# Of those, what a found record shows of its indexing (the rest is never returned).
SHOWN_INDEX_PROPERTIES = frozenset(
    {"record_type", "embedding_model", "search_truncated", "embedded_at"}
)


def spec_for(label: str) -> SearchableSpec:
    return SEARCHABLE[Label(label).value]


def indexed_text(spec: SearchableSpec, properties: dict[str, object]) -> str:
    """The text a record is found by: its text fields joined, lists flattened."""
    parts: list[str] = []
    for name in spec.text_fields:
        if spec.conversational and name == "metadata":
            continue
        value = properties.get(name)
        if isinstance(value, list):
            value = " ".join(str(item) for item in value)
        if isinstance(value, str) and value.strip():
            parts.append(value.strip())
    return "\n".join(parts)


@dataclass(frozen=True)
class IndexedTexts:
    keyword: str  # held by the full-text (BM25) index, stored as search_text
    vector: str  # embedded


def texts_for(
    spec: SearchableSpec, properties: dict[str, object], previous: Mapping[str, object] | None
) -> IndexedTexts:
    if not spec.conversational:
        text = indexed_text(spec, properties)
        return IndexedTexts(text, text)
    return conversation_text(properties, previous)


def conversation_text(
    event: Mapping[str, object], previous: Mapping[str, object] | None
) -> IndexedTexts:
    """A turn alone rarely says what it is about ("Thanks! I'm excited!"): the words of the
    turn it follows in the thread make it findable by keyword. Its own words count twice there
    (a field boost inside the one full-text field), so that a search for them still ranks the
    turn itself above the reply after it. The embedding is of the turn alone: context added
    nothing to it on LoCoMo and blurs which turn the vector stands for."""
    own = utterance(event)
    if not own:
        return IndexedTexts("", "")
    before = utterance(previous) if previous else ""
    return IndexedTexts("\n".join(part for part in (before, own, own) if part), own)


def utterance(event: Mapping[str, object]) -> str:
    """'Speaker: text [media: caption]' from metadata.speaker (who said it, by name: questions
    name people, turns rarely do) and metadata.media_caption (a description of attached media)."""
    metadata = event.get("metadata")
    if isinstance(metadata, str):
        try:
            metadata = json.loads(metadata)
        except ValueError:
            metadata = None
    meta = metadata if isinstance(metadata, dict) else {}
    text = str(event.get("text") or "").strip()
    caption, speaker = meta.get("media_caption"), meta.get("speaker")
    if isinstance(caption, str) and caption.strip():
        text = f"{text} [media: {caption.strip()}]".strip()
    if text and isinstance(speaker, str) and speaker.strip():
        text = f"{speaker.strip()}: {text}"
    return text
