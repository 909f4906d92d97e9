"""Compiles a GraphQL selection into one Cypher query: map projections with nested COLLECT
subqueries, following the relationships declared in the model, filters and limits included.

Only identifiers from the model's registry reach the query text; every value is a parameter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.domain.kernel.errors import ValidationFailed
from app.graph.fragments import after_cursor, listed
from app.graph.registry import Entity, Relationship, entity
from app.graph.selection import Field, merged

MAX_RELATED = 1_000
DEFAULT_RELATED = 100
ORDERS = {
    "CREATED_AT_DESC": ("created_at", "DESC"),
    "CREATED_AT_ASC": ("created_at", "ASC"),
    "UPDATED_AT_DESC": ("updated_at", "DESC"),
    "UPDATED_AT_ASC": ("updated_at", "ASC"),
}


class GraphQLNames(Protocol):
    """What the compiler needs to know of the API's node types."""

    def python_name(self, label: str, graphql_name: str) -> str | None:
        """The Python (= model) name of a GraphQL field of the label's type."""
        ...

    def needs(self, label: str) -> frozenset[str]:
        """Properties the type's resolver fields read from the row whatever the selection."""
        ...


@dataclass
class Compiler:
    client_id: str
    names: GraphQLNames
    params: dict[str, Any] = field(default_factory=dict)
    _depth: int = 0

    def __post_init__(self) -> None:
        self.params["client_id"] = self.client_id

    @property
    def follows_relationships(self) -> bool:
        """Whether what it compiled so far reads related records (COLLECT subqueries)."""
        return self._depth > 0

    def param(self, value: Any) -> str:
        name = f"p{len(self.params)}"
        self.params[name] = value
        return f"${name}"

    def projection(
        self, label: str, var: str, selections: Sequence[Field], *, cursor: bool = False
    ) -> str:
        model = entity(label)
        properties = {"id", *self.names.needs(label)}
        if cursor:
            properties.add("created_at")
        nested: dict[str, str] = {}
        for selected in merged(selections):
            name = self.names.python_name(label, selected.name)
            if name in model.relationships:
                nested[selected.key] = self.related(model.relationships[name], var, selected)
            elif name in model.properties:
                properties.add(name)
        # Datetimes travel as text: the driver's conversion of temporal values costs more than
        # the rest of a nested read (measured in bench/lineage.py); from_row parses them back.
        parts = [
            f"{name}: toString({var}.{name})" if name in model.datetimes else f".{name}"
            for name in sorted(properties)
        ]
        parts += [f"`{key}`: {query}" for key, query in nested.items()]
        return f"{var} {{{', '.join(parts)}}}"

    def related(self, relationship: Relationship, var: str, selected: Field) -> str:
        self._depth += 1
        target = f"n{self._depth}"
        arguments = selected.arguments
        first = as_int(arguments.get("first", DEFAULT_RELATED))
        if not 0 <= first <= MAX_RELATED:
            raise ValidationFailed(f"first must be between 0 and {MAX_RELATED}", field="first")
        order_field, direction = ORDERS.get(
            arguments.get("orderBy") or "", ORDERS["CREATED_AT_DESC"]
        )
        conditions = [f"{target}.client_id = $client_id"]
        target_model = entity(relationship.target)
        if target_model.visible:
            conditions.append(target_model.visible(target))
        conditions += self.filters(target_model, target, arguments.get("where"))
        inner = self.projection(relationship.target, target, selected.children)
        return (
            f"COLLECT {{ MATCH {relationship.pattern(var, target)} "
            f"WHERE {' AND '.join(conditions)} "
            f"WITH {target} ORDER BY {target}.{order_field} {direction}, {target}.id "
            f"LIMIT {self.param(first)} RETURN {inner} }}"
        )

    def filters(self, model: Entity, var: str, where: dict[str, Any] | None) -> list[str]:
        """Conditions for a `RecordWhere` input (GraphQL names), each checked against the model."""
        conditions = []
        for key, value in (where or {}).items():
            if value is None:
                continue
            condition = FILTERS.get(key)
            if condition is None:
                raise ValidationFailed(f"unknown filter {key!r}", field=key)
            prop, template = condition
            if prop not in model.properties:
                raise ValidationFailed(f"{model.label} has no {prop!r} to filter on", field=key)
            if key in CHOICE_FILTERS:
                value = _choice(model, prop, key, value)
            conditions.append(template.format(v=var, p=self.param(value)))
        return conditions


FILTERS: dict[str, tuple[str, str]] = {
    "ids": ("id", "{v}.id IN {p}"),
    "statusIn": ("status", "{v}.status IN {p}"),
    "createdAfter": ("created_at", "{v}.created_at >= datetime({p})"),
    "createdBefore": ("created_at", "{v}.created_at < datetime({p})"),
    "updatedAfter": ("updated_at", "{v}.updated_at >= datetime({p})"),
    "planId": ("plan_id", "{v}.plan_id = {p}"),
    "assetId": ("asset_id", "{v}.asset_id = {p}"),
    "packageId": ("package_id", "{v}.package_id = {p}"),
    "platform": ("platform", "{v}.platform = toLower({p})"),
    "nodeType": ("node_type", "{v}.node_type = toLower({p})"),
    "assetType": ("asset_type", "{v}.asset_type = toLower({p})"),
    "nameContains": ("name", "toLower({v}.name) CONTAINS toLower({p})"),
    "titleContains": ("title", "toLower({v}.title) CONTAINS toLower({p})"),
    "kind": ("kind", "{v}.kind = {p}"),
    "documentId": ("document_id", "{v}.document_id = {p}"),
    "version": ("version", "{v}.version = toInteger({p})"),
    "period": ("period", "{v}.period = {p}"),
    "sessionType": ("session_type", "{v}.session_type = toLower({p})"),
}
# Filters on a property that is an enum on some labels: the value is checked against the
# label's choices (case-insensitively) there, and matched exactly on labels where it is text.
CHOICE_FILTERS = frozenset({"statusIn", "kind", "period"})


def _choice(model: Entity, prop: str, key: str, value: Any) -> Any:
    choices = model.choices.get(prop)
    if not choices:
        return value
    values = [str(v).lower() for v in (value if isinstance(value, list) else [value])]
    unknown = set(values) - choices
    if unknown:
        raise ValidationFailed(f"unknown {model.label} {prop} {sorted(unknown)}", field=key)
    return values if isinstance(value, list) else values[0]


def as_int(value: Any) -> int:
    """Literal arguments reach the compiler as text; variables as JSON numbers."""
    try:
        return int(value)
    except (TypeError, ValueError) as error:
        raise ValidationFailed(f"first must be a whole number, got {value!r}") from error


def get_query(compiler: Compiler, label: str, selections: Sequence[Field]) -> str:
    projection = compiler.projection(label, "n0", selections)
    model = entity(label)
    match = f"MATCH (n0:`{model.label}` {{id: $id, client_id: $client_id}})"
    if model.visible:
        match += f" WHERE {model.visible('n0')}"
    return f"{match} RETURN {projection} AS row"


def by_ids_query(compiler: Compiler, label: str, selections: Sequence[Field]) -> str:
    """The selected projections of records of `$ids` (the caller's; missing ones give no row),
    keyed by id: what a domain function's records lack of the caller's selection."""
    projection = compiler.projection(label, "n0", selections)
    return (
        f"MATCH (n0:`{entity(label).label}` {{client_id: $client_id}}) WHERE n0.id IN $ids "
        f"RETURN n0.id AS id, {projection} AS row"
    )


def connection_query(
    compiler: Compiler,
    label: str,
    selections: Sequence[Field],
    *,
    where: dict[str, Any] | None,
    ascending: bool,
) -> str:
    """One round trip: the total under the filter, then one keyset page with projections."""
    model = entity(label)
    # The count runs in its own scope, so it can reuse the page's variable and conditions.
    visible = [model.visible("n0")] if model.visible else []
    filters = " AND ".join([listed("n0"), *visible, *compiler.filters(model, "n0", where)])
    direction = "ASC" if ascending else "DESC"
    keyset = after_cursor("n0", newest_first=not ascending)
    projection = compiler.projection(label, "n0", selections, cursor=True)
    return (
        f"CALL () {{ MATCH (n0:`{model.label}` {{client_id: $client_id}}) WHERE {filters} "
        f"RETURN count(n0) AS total }} "
        f"OPTIONAL MATCH (n0:`{model.label}` {{client_id: $client_id}}) "
        f"WHERE {filters} AND {keyset} "
        f"WITH total, n0 ORDER BY n0.created_at {direction}, n0.id {direction} LIMIT $limit "
        f"RETURN total, collect({projection}) AS rows"
    )
