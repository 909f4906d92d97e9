"""The record types search covers, as GraphQL shows them: one per searchable label of the model
(app/model/facts.py), in the model's order. The SearchRecordType enum names each label
(PLAN_NODE = "PlanNode") and the SearchRecord union holds their node types."""

from __future__ import annotations

import operator
from enum import Enum
from functools import reduce
from typing import TYPE_CHECKING, Annotated

import strawberry

from app.api.types.base import NodeType, every_node_type
from app.model.labels import SEARCHABLES, search_type_name

if TYPE_CHECKING:
    # Built at run time from the model, which a type checker cannot follow.
    SearchRecordType = Enum
    SearchRecord = NodeType
else:
    SearchRecordType = strawberry.enum(
        Enum("SearchRecordType", {search_type_name(label): label for label in SEARCHABLES}),
        description="The record types that search covers.",
    )
    _NODE_TYPES = every_node_type()
    SearchRecord = Annotated[
        reduce(operator.or_, (_NODE_TYPES[label] for label in SEARCHABLES)),
        strawberry.union("SearchRecord", description="Any searchable record."),
    ]
