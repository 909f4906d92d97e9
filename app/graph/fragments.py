"""Cypher fragments stated once, and the small builders for the parts that vary.

What reaches query text here: labels through the closed Label enum (`cypher_label`), variable
names and aliases written in code (checked below), parameter references; values never (they
travel as parameters). Each builder returns text that runs inside the caller's query.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import StrEnum

from app.graph.identifiers import cypher_label
from app.model.search_index import HIDDEN_INDEX_PROPERTIES

# Two clocks. The request's own instant, a parameter, so every condition of one call and the
# timestamps it writes agree; the database's, for queries that carry no clock of their own.
NOW = "$now"
DB_CLOCK = "datetime()"

_VARIABLE = re.compile(r"^[a-z][a-z0-9_]{0,30}$")
_PARAMETER = re.compile(r"^\$[a-z][a-z0-9_]{0,30}(\.[a-z][a-z0-9_]{0,30})?$")
_CLOCKS = frozenset({NOW, DB_CLOCK})


def _name(text: str) -> str:
    """A variable or alias written in code: lower-case letters, digits and underscores."""
    if not _VARIABLE.match(text):
        raise ValueError(f"not a Cypher variable name: {text!r}")
    return text


def parameter(text: str) -> str:
    """A parameter reference (`$name` or `$map.key`): how a value enters a query."""
    if not _PARAMETER.match(text):
        raise ValueError(f"not a Cypher parameter reference: {text!r}")
    return text


def _clock(clock: str) -> str:
    if clock not in _CLOCKS:
        raise ValueError(f"a clock is {NOW} or {DB_CLOCK}, not {clock!r}")
    return clock


def not_expired(var: str, clock: str = NOW, *, ordered_seek: bool = False) -> str:
    """`var` has no expiry or expires after `clock`. `ordered_seek` writes it without an OR,
    which would split an index seek whose order the query relies on (agents.context)."""
    v = _name(var)
    if ordered_seek:
        return f"coalesce({v}.expires_at > {_clock(clock)}, true)"
    return f"({v}.expires_at IS NULL OR {v}.expires_at > {_clock(clock)})"


def live(var: str, clock: str = NOW, *, flagless: bool = False, ordered_seek: bool = False) -> str:
    """A memory record readers may see: not forgotten (active) and not expired at `clock`.
    `flagless`: a node without the `active` flag counts as not forgotten (search spans labels
    that have none)."""
    v = _name(var)
    active = f"({v}.active IS NULL OR {v}.active)" if flagless else f"{v}.active"
    return f"{active} AND {not_expired(v, clock, ordered_seek=ordered_seek)}"


def record_projection(var: str) -> str:
    """Every property of `var` but the hidden index properties (nulled: absent once plain)."""
    hidden = ", ".join(f"{prop}: null" for prop in HIDDEN_INDEX_PROPERTIES)
    return f"{_name(var)} {{.*, {hidden}}}"


def own(var: str, label: StrEnum | str, record_id: str = "$id") -> str:
    """The pattern of the caller's node of that label and id (`$client_id` scopes it)."""
    scope = f"{{id: {parameter(record_id)}, client_id: $client_id}}"
    return f"({_name(var)}:{cypher_label(label)} {scope})"


def lock(var: str) -> str:
    """Takes the node's write lock before anything is read of it (a dummy SET and REMOVE)."""
    return f"SET {_name(var)}._lock = true REMOVE {_name(var)}._lock"


def _returning(alias: str, also: tuple[str, ...], fields: str = "") -> str:
    shown = f"n {{.*, {fields}}}" if fields else "n {.*}"
    return ", ".join([f"{shown} AS {_name(alias)}", *also])


def get_query(label: StrEnum | str, alias: str) -> str:
    """The caller's node of that label and `$id`, as `alias`."""
    return f"MATCH {own('n', label)}\nRETURN {_returning(alias, ())}"


def lock_query(label: StrEnum | str, alias: str, *also: str, fields: str = "") -> str:
    """Write-locks then returns the caller's node as `alias`. Over `n`, fixed fragments of the
    caller's module: `also`, more return items; `fields`, more entries of the node's map."""
    return f"MATCH {own('n', label)}\n{lock('n')}\nRETURN {_returning(alias, also, fields)}"


def update_query(label: StrEnum | str, alias: str) -> str:
    """Sets `$changes` and updated_at = `$now` on the caller's node; returns it as `alias`."""
    changes = "SET n += $changes, n.updated_at = $now"
    return f"MATCH {own('n', label)}\n{changes}\nRETURN {_returning(alias, ())}"


def listed(var: str) -> str:
    """True of every record (each has created_at); said so that the planner may seek a
    (client_id, created_at) index, which holds only nodes having both: without it, a list by
    client scanned every client's nodes of the label (97 ms against 3-5 ms for 325 of 57k
    events)."""
    return f"{_name(var)}.created_at IS NOT NULL"


def after_cursor(var: str, *, newest_first: bool = True) -> str:
    """Past the keyset cursor ($after_created_at, $after_id; both null on the first page)."""
    v, past = _name(var), "<" if newest_first else ">"
    return (
        f"($after_created_at IS NULL OR {v}.created_at {past} $after_created_at\n"
        f"     OR ({v}.created_at = $after_created_at AND {v}.id {past} $after_id))"
    )


def keyset_order(var: str, *, newest_first: bool = True) -> str:
    """The keyset's order over (created_at, id) and the page size `$limit`."""
    v, direction = _name(var), " DESC" if newest_first else ""
    return f"ORDER BY {v}.created_at{direction}, {v}.id{direction} LIMIT $limit"


def keyset_page(match: str, where: str, var: str, shown: str, alias: str) -> str:
    """The total under `match` + `where`, and one page of it newest first (projected as
    `shown`, collected as `alias`), in one round trip: returns `total` and `alias`."""
    v = _name(var)
    filtered = f"{match}\nWHERE ({where}) AND {listed(v)}"
    return f"""
CALL () {{ {filtered} RETURN count({v}) AS total }}
CALL () {{
  {filtered}
  AND {after_cursor(v)}
  WITH {v} {keyset_order(v)}
  RETURN collect({shown}) AS {_name(alias)}
}}
RETURN total, {_name(alias)}
"""


def merge_agent(var: str = "a", *, agent_name: str = "$agent_name", clock: str = NOW) -> str:
    """The client's agent of that name, created on first use (MERGE on the (client_id, name)
    uniqueness constraint: concurrent first uses make one agent). `$agent_id` names a new one."""
    v = _name(var)
    created = parameter(clock)
    return (
        f"MERGE ({v}:Agent {{client_id: $client_id, name: {parameter(agent_name)}}})\n"
        f"ON CREATE SET {v}.id = $agent_id, {v}.created_at = {created}, "
        f"{v}.updated_at = {created}"
    )


def fact_in_force(fact: str, version: str) -> str:
    """A KnowledgeFact `fact` belongs to the version numbered `version` of its knowledge base:
    from the version that introduced it until the one that changed or removed it."""
    return (
        f"{_name(fact)}.from_version <= {version} "
        f"AND ({_name(fact)}.to_version IS NULL OR {_name(fact)}.to_version > {version})"
    )


def label_of_query(labels: Iterable[StrEnum | str]) -> str:
    """The labels of the caller's node `$id` if it has one of `labels`: one index seek per
    label (a lookup without a label would scan every node)."""
    seeks = "\n  UNION ALL\n  ".join(
        f"MATCH {own('n', label)} RETURN labels(n) AS labels" for label in labels
    )
    return f"CALL () {{\n  {seeks}\n}}\nRETURN labels LIMIT 1"
