"""The per-label lists, derived from the facts each model class declares (app/model/facts.py);
in the model's order, which is also the order the GraphQL schema shows them in."""

from __future__ import annotations

import re

from app.model import MODEL
from app.model.facts import Searchable

# Label -> the module of its GraphQL node type.
GRAPHQL_MODULES: dict[str, str] = {
    cls.__name__: cls.facts.graphql for cls in MODEL if cls.facts.graphql
}
# Label -> its root query fields (one by id, the list).
ROOT_FIELDS: dict[str, tuple[str, str]] = {
    cls.__name__: cls.facts.roots for cls in MODEL if cls.facts.roots
}
# Label -> how search indexes it.
SEARCHABLES: dict[str, Searchable] = {
    cls.__name__: cls.facts.searchable for cls in MODEL if cls.facts.searchable
}
# The filter values some searchable label stores at index time (`search_<name>` on the node).
DERIVED_FILTERS: tuple[str, ...] = tuple(
    dict.fromkeys(name for searchable in SEARCHABLES.values() for name in searchable.derived)
)


def search_type_name(label: str) -> str:
    """The label's member of the SearchRecordType enum: PlanNode -> PLAN_NODE."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", label).upper()
