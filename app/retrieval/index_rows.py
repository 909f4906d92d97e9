"""What the embedding worker reads of a claimed record, the row it embeds and writes back, and
the write-back itself (only while the worker holds the record's claim: claims.py)."""

from __future__ import annotations

import hashlib
from typing import Any

from app.model.labels import DERIVED_FILTERS
from app.retrieval.claims import held
from app.retrieval.searchable import SearchableSpec, texts_for
from app.retrieval.vector_index import LEGACY_MODEL, is_vector_property

SEARCH_TEXT_MAX = 32_000
# The text hash (search_hash) says whether a record's text changed, whatever the models: it is
# salted with the first model's name, as it was when the hash held the one model's name, so the
# records hashed then are not re-embedded.
HASH_SALT = LEGACY_MODEL
# The vector properties (app/retrieval/vector_index.py) a claimed record has.
VECTOR_KEYS = "[k IN keys(n) WHERE k STARTS WITH 'embedding' AND k <> 'embedding_model']"
REGISTRY = "MATCH (m:MemoryIndex) RETURN collect(m {.scope, .property, .status}) AS registry"
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
        f"{previous} AS previous, {VECTOR_KEYS} AS vector_keys"
    )


def write_query(spec: SearchableSpec) -> str:
    """Writes back what the worker still holds and that did not change since it was claimed
    (compared as text: a datetime sent back by the driver may carry another zone form): each
    row's `vectors` ([{property, vector}], app/retrieval/vectors.py). A changed or emptied text
    makes every other model's vector stale. The registry is read here, in the write: a record
    that lacks an index not retired of its scopes (registered since this worker last looked)
    stays pending, counted in `unmet`, so that the worker looks again."""
    derived = ", ".join(f"n.search_{name} = row.derived.{name}" for name in DERIVED_FILTERS)
    return (
        f"{held(spec)}"
        "WITH n, row WHERE toString(n.updated_at) = row.stamp "
        f"CALL () {{ {REGISTRY} }} "
        "WITH n, row, registry, NOT row.empty AND NOT row.unchanged AS changed, "
        "[v IN row.vectors | v.property] AS written "
        "FOREACH (_ IN CASE WHEN changed THEN [1] ELSE [] END | "
        "  SET n:Searchable, n.record_type = $record_type, n.search_client = row.client_key, "
        "  n.search_text = row.text, n.search_hash = row.hash, n.embedding_model = row.model, "
        f"  n.search_truncated = row.truncated, {derived}, n.embedded_at = datetime()) "
        "FOREACH (p IN CASE WHEN changed OR row.empty THEN "
        "  [x IN ['embedding'] + [m IN registry | m.property] WHERE NOT x IN written] "
        "  ELSE [] END | SET n[p] = null) "
        "FOREACH (v IN row.vectors | SET n[v.property] = v.vector) "
        "FOREACH (_ IN CASE WHEN size(written) > 0 THEN [1] ELSE [] END | "
        "  SET n.embed_count = coalesce(n.embed_count, 0) + 1) "
        "FOREACH (_ IN CASE WHEN row.empty THEN [1] ELSE [] END | "
        "  REMOVE n:Searchable, n.search_text, n.search_hash) "
        "WITH n, NOT row.empty AND any(m IN registry WHERE m.status <> 'retired' "
        "  AND m.scope IN ['', n.client_id] AND n[m.property] IS NULL) AS waiting "
        "FOREACH (_ IN CASE WHEN waiting THEN [] ELSE [1] END | "
        "  SET n.indexed_version = n.updated_at) "
        "REMOVE n.index_error "
        "RETURN count(CASE WHEN waiting THEN 1 END) AS unmet"
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


def prepare(spec: SearchableSpec, row: dict[str, Any]) -> dict[str, Any]:
    """The row the worker embeds and writes back; `present`: the vector properties the record
    has (app/retrieval/vectors.py embeds an unchanged text only for the models it lacks)."""
    previous = dict(row["previous"]) if row.get("previous") else None
    texts = texts_for(spec, dict(row["props"]), previous)
    text, embed_text = texts.keyword[:SEARCH_TEXT_MAX], texts.vector[:SEARCH_TEXT_MAX]
    # One text for both signals hashes as before, so those records are not re-embedded.
    joined = text if text == embed_text else f"{text}\n\x00{embed_text}"
    digest = text_hash(HASH_SALT, joined)
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
        "present": [key for key in row.get("vector_keys") or [] if is_vector_property(key)],
        "vectors": [],
        "model": None,
        "truncated": False,
    }
