"""A node type's fields, taken from its model class: a scalar field per property, then a field
per relationship. A type module declares only what the model cannot say: computed fields, the
properties and relationships it hides (`__hidden__`), and a model property when it needs a
description, a GraphQL type other than the mapping's, or a static type for the Python code that
reads it.

The mapping: StringProperty -> String, or ID for `id` and names ending in `_id` / `_ids`
(references to records); an EnumProperty -> its StrEnum; IntegerProperty -> Int, FloatProperty
-> Float, BooleanProperty -> Boolean, DateTimeProperty -> DateTime, JSONProperty -> JSON,
ArrayProperty -> a list of its items' type; required -> non-null. The order: `id`, the label's
own properties as the model declares them, then the other properties every record has
(`created_at`, `updated_at`), then the relationships as the model declares them (each a field of
app/api/types/related.py, described by the model: app/model/relationships.py)."""

# No `from __future__ import annotations`: the annotations built here are values.
from datetime import datetime
from types import GenericAlias
from typing import Any

import neomodel
import strawberry
from neomodel import RelationshipDefinition
from neomodel.properties import Property
from strawberry.scalars import JSON

from app.api.types.related import relationship_field
from app.model import MODEL
from app.model.nodes import EnumProperty, Record

# The owning client: every read is already scoped to the caller's, so no type shows it.
HIDDEN: frozenset[str] = frozenset({"client_id"})
LEADING = "id"
_PLAIN: tuple[tuple[type[Property], Any], ...] = (
    (neomodel.IntegerProperty, int),
    (neomodel.FloatProperty, float),
    (neomodel.BooleanProperty, bool),
    (neomodel.DateTimeProperty, datetime),
    (neomodel.JSONProperty, JSON),
)
_MODEL_CLASSES: dict[str, type[Record]] = {cls.__name__: cls for cls in MODEL}


def with_model_fields(
    cls: type, model: type[Record], *, hidden: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """The class's annotations with one for every shown model property it does not declare,
    then one for every shown relationship (whose field is set on the class unless the class
    declares it), in the model's order; the class's own other annotations follow."""
    declared: dict[str, Any] = dict(cls.__dict__.get("__annotations__", {}))
    fields = {
        name: declared.pop(name) if name in declared else scalar_annotation(name, prop)
        for name, prop in shown_properties(model, hidden).items()
    }
    for name, relationship in shown_relationships(model, hidden).items():
        field = cls.__dict__.get(name)  # a class may declare it (to_many / to_one) itself
        if field is None:
            field = relationship_field(name, relationship)
            setattr(cls, name, field)
        fields[name] = field.type_annotation.annotation
    return fields | declared


def model_class(label: str) -> type[Record]:
    return _MODEL_CLASSES[label]


def shown_properties(model: type[Record], hidden: frozenset[str]) -> dict[str, Property]:
    """The model's properties GraphQL shows, in the order the type lists them."""
    properties = model.defined_properties(rels=False, aliases=False)
    common = Record.defined_properties(rels=False, aliases=False)
    order = [
        LEADING,
        *(n for n in properties if n not in common),
        *(n for n in common if n != LEADING),
    ]
    return {name: properties[name] for name in order if name not in HIDDEN | hidden}


def shown_relationships(
    model: type[Record], hidden: frozenset[str]
) -> dict[str, RelationshipDefinition]:
    """The model's relationships GraphQL shows, in the model's order."""
    relationships = model.defined_properties(properties=False, aliases=False)
    return {name: rel for name, rel in relationships.items() if name not in hidden}


def scalar_annotation(name: str, prop: Property) -> Any:
    """The GraphQL type of a model property (see the module's note)."""
    value: Any = (
        GenericAlias(list, _item_type(name, prop.base_property))
        if isinstance(prop, neomodel.ArrayProperty)
        else _item_type(name, prop)
    )
    return value if prop.required else value | None


def _item_type(name: str, prop: Property | None) -> Any:
    if isinstance(prop, EnumProperty):
        return prop.enum
    if isinstance(prop, neomodel.StringProperty):
        reference = name == LEADING or name.endswith(("_id", "_ids"))
        return strawberry.ID if reference else str
    for kind, value in _PLAIN:
        if isinstance(prop, kind):
            return value
    raise TypeError(f"no GraphQL type for the model property {name} ({type(prop).__name__})")
