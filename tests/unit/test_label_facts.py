"""The per-label facts of the model (app/model/facts.py) hold: each GraphQL type module named
defines the label's node type, and each label's root fields are in the schema."""

from importlib import import_module

import pytest

from app.api.schema import schema
from app.api.types.base import NODE_TYPES
from app.model.facts import LabelFacts, Searchable
from app.model.labels import GRAPHQL_MODULES, ROOT_FIELDS, search_type_name


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


@pytest.mark.parametrize("label", list(GRAPHQL_MODULES))
def test_each_named_type_module_defines_the_label_s_node_type(label: str) -> None:
    module = import_module(GRAPHQL_MODULES[label])
    node_type = getattr(module, label)  # strawberry.lazy finds it by the label
    assert NODE_TYPES[label] is node_type and node_type.__model__ == label


def test_every_registered_node_type_is_named_by_the_model() -> None:
    assert set(NODE_TYPES) == set(GRAPHQL_MODULES)


def test_every_label_s_root_fields_are_in_the_schema() -> None:
    query = schema.get_type_by_name("Query")
    assert query is not None
    fields = {field.graphql_name or _camel(field.python_name) for field in query.fields}
    for label, (one, many) in ROOT_FIELDS.items():
        assert {_camel(one), _camel(many)} <= fields, label


def test_labels_without_a_graphql_type_declare_no_roots_or_search() -> None:
    with pytest.raises(ValueError):
        LabelFacts(roots=("x", "xs"))
    with pytest.raises(ValueError):
        LabelFacts(searchable=Searchable(("text",)))


def test_search_type_names() -> None:
    assert search_type_name("Plan") == "PLAN"
    assert search_type_name("ConversationEvent") == "CONVERSATION_EVENT"
