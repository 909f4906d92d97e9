"""The searchable records as the embedding worker and search see them: what the model declares
of each (app/model/facts.py, `Searchable`) under its label, and the text a record is found by.

Every searchable node also carries the `Searchable` label once the embedding worker has seen
it: one vector index and one full-text index over that label serve every record type, both
filtered by client inside the index.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields

from app.model.facts import Searchable
from app.model.labels import SEARCHABLES


@dataclass(frozen=True, kw_only=True)
class SearchableSpec(Searchable):
    label: str


def _spec(label: str, searchable: Searchable) -> SearchableSpec:
    declared = {f.name: getattr(searchable, f.name) for f in fields(searchable)}
    return SearchableSpec(label=label, **declared)


SEARCHABLE: dict[str, SearchableSpec] = {
    label: _spec(label, searchable) for label, searchable in SEARCHABLES.items()
}


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
