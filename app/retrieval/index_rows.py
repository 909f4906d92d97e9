"""What the embedding worker reads of a claimed record, the row it embeds and writes back, and
the write-back itself (only while the worker holds the record's claim: claims.py)."""

from __future__ import annotations

import hashlib
from typing import Any

from app.model.labels import DERIVED_FILTERS
from app.retrieval.claims import held
from app.retrieval.searchable import SearchableSpec, texts_for

SEARCH_TEXT_MAX = 32_000
# The event a conversation event follows in its thread (index on thread_id, sequence).
PREVIOUS_EVENT = (
    "head(COLLECT { MATCH (p:ConversationEvent {thread_id: n.thread_id}) "
    "WHERE p.sequence = n.sequence - 1 AND p.client_id = n.client_id "
    "RETURN p {.text, .metadata} })"
)


def returned(spec: SearchableSpec) -> str:
    """What a claimed record is indexed from (the return items over `n`)."""
    names = (*spec.text_fields, *([spec.stored_text] if spec.stored_text else []))
    fields = ", ".join(f".{name}" for name in names)
    derived = ", ".join(f"{name}: {spec.derived.get(name, 'null')}" for name in DERIVED_FILTERS)
    previous = PREVIOUS_EVENT if spec.conversational else "null"
    return (
        "n.id AS id, n.client_id AS client_id, n.updated_at AS updated_at, "
        "toString(n.updated_at) AS stamp, "
        f"n.search_hash AS hash, n {{{fields}}} AS props, {{{derived}}} AS derived, "
        f"{previous} AS previous"
    )


def write_query(spec: SearchableSpec) -> str:
    """Writes back what the worker still holds and that did not change since it was claimed
    (compared as text: a datetime sent back by the driver may carry another zone form)."""
    derived = ", ".join(f"n.search_{name} = row.derived.{name}" for name in DERIVED_FILTERS)
    return (
        f"{held(spec)}"
        "WITH n, row WHERE toString(n.updated_at) = row.stamp "
        "FOREACH (_ IN CASE WHEN row.embedding IS NULL THEN [] ELSE [1] END | "
        "  SET n:Searchable, n.record_type = $record_type, n.search_client = row.client_key, "
        "  n.search_text = row.text, n.search_hash = row.hash, n.embedding = row.embedding, "
        f"  n.embedding_model = $model, n.search_truncated = row.truncated, {derived}, "
        "  n.embedded_at = datetime(), n.embed_count = coalesce(n.embed_count, 0) + 1) "
        "FOREACH (_ IN CASE WHEN row.empty THEN [1] ELSE [] END | "
        "  REMOVE n:Searchable, n.embedding, n.search_text, n.search_hash) "
        "SET n.indexed_version = n.updated_at REMOVE n.index_error"
    )


def failed_query(spec: SearchableSpec) -> str:
    """Records that cannot be indexed wait, marked, for their next update instead of blocking
    every later batch of their label."""
    return (
        f"{held(spec)}"
        "WITH n, row WHERE toString(n.updated_at) = row.stamp "
        "SET n.indexed_version = n.updated_at, n.index_error = row.error"
    )


def client_key(client_id: str) -> str:
    """The client id as one full-text token (the analyzer splits on hyphens)."""
    return client_id.replace("-", "").lower()


def text_hash(model: str, text: str) -> str:
    return hashlib.sha256(f"{model}\n{text}".encode()).hexdigest()


def prepare(model: str, spec: SearchableSpec, row: dict[str, Any]) -> dict[str, Any]:
    previous = dict(row["previous"]) if row.get("previous") else None
    texts = texts_for(spec, dict(row["props"]), previous)
    text, embed_text = texts.keyword[:SEARCH_TEXT_MAX], texts.vector[:SEARCH_TEXT_MAX]
    # One text for both signals hashes as before, so those records are not re-embedded.
    digest = text_hash(model, text if text == embed_text else f"{text}\n\x00{embed_text}")
    return {
        "id": row["id"],
        "client_id": row["client_id"],
        "client_key": client_key(row["client_id"]),
        "stamp": row["stamp"],
        "derived": dict(row["derived"]),
        "text": text,
        "embed_text": embed_text,
        "hash": digest,
        "empty": not text,
        "unchanged": digest == row["hash"],
        "embedding": None,
        "truncated": False,
    }
