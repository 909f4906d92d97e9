"""What the embedding worker writes on a searchable record besides its own state: the label
every indexed record carries and the index properties. Every read that returns a record as its
own state leaves the hidden ones out."""

from __future__ import annotations

from app.model.labels import DERIVED_FILTERS

SEARCHABLE_LABEL = "Searchable"

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
        # The worker's claim on a record while it embeds it, and the embeddings written so far.
        "index_claim",
        "index_claim_until",
        "embed_count",
        *(f"search_{name}" for name in DERIVED_FILTERS),
    }
)
# Of those, what a found record shows of its indexing (the rest is never returned).
SHOWN_INDEX_PROPERTIES = frozenset(
    {"record_type", "embedding_model", "search_truncated", "embedded_at"}
)
# Never returned with a record: sorted, for Cypher projections that null them.
HIDDEN_INDEX_PROPERTIES = tuple(sorted(INDEX_PROPERTIES - SHOWN_INDEX_PROPERTIES))

# Each embedding model's vectors (app/retrieval/vector_index.py): the first model's in
# `embedding` (above), any other's in `embedding__<slug>`.
VECTOR_PROPERTY_PREFIX = "embedding__"


_HIDDEN = frozenset(HIDDEN_INDEX_PROPERTIES)


def is_hidden_property(name: str) -> bool:
    """Written by the embedding worker and never returned with a record."""
    return name in _HIDDEN or name.startswith(VECTOR_PROPERTY_PREFIX)
