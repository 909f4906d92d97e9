"""What the service does with a label besides storing it, declared next to its model class as
`facts = LabelFacts(...)`. Every per-label list (GraphQL type modules and root fields, the
searchable labels, the search record types, the migration checks) is derived from these
(app/model/labels.py), so a new record type is declared once, on its class."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Searchable:
    """How the embedding worker indexes a label (app/retrieval/indexing.py). A searchable
    label also needs an index on `updated_at` (the worker scans by it): a test holds the
    migrations to that."""

    # Properties joined (in order, skipping empty ones) into the indexed text.
    text_fields: tuple[str, ...]
    # Filter values stored on the node at index time: name -> Cypher expression over `n`.
    # The expressions are constants of the model, never caller input.
    derived: dict[str, str] = field(default_factory=dict)
    # Conversation events are indexed as read in their conversation: see conversation_text.
    conversational: bool = False
    # A property holding the object-storage URI of text too long to keep inline: the worker
    # reads it from there when the inline text is empty.
    stored_text: str | None = None


@dataclass(frozen=True)
class LabelFacts:
    # The module (under app/api/types) whose @node_type class, named as the label, is the
    # label's GraphQL type; None for labels GraphQL never shows.
    graphql: str | None = None
    # The root query fields reading the label: one record by id, and the paginated list.
    roots: tuple[str, str] | None = None
    # Whether and how search finds the label's records (also its SearchRecordType member and
    # its place in the SearchRecord union).
    searchable: Searchable | None = None
    # Forgotten (active false) and expired records are hidden from every compiled read
    # (app/graph/fragments.live at the database's clock).
    forgettable: bool = False

    def __post_init__(self) -> None:
        if (self.roots or self.searchable) and not self.graphql:
            raise ValueError("root fields and search results need a GraphQL type")
