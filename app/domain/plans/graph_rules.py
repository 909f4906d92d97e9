"""Rules of a whole plan graph sent at once: keys, edges and acyclicity, checked in Python."""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Sequence
from typing import Any

from app.domain.kernel.errors import CycleDetected, ValidationFailed
from app.domain.plans.node_rules import check_new_node
from app.model.enums import PlanEdgeType

MAX_NODES = 500
MAX_EDGES = 2_000
MAX_KEY = 100


def check_graph(
    nodes: Sequence[dict[str, Any]], edges: Sequence[dict[str, Any]]
) -> tuple[list[tuple[str, dict[str, Any]]], list[tuple[str, str, PlanEdgeType]]]:
    """Validate nodes (each with a client-side `key`) and edges between keys.

    Returns (key, stored node fields) in input order and (from_key, to_key, edge type) edges.
    """
    if len(nodes) > MAX_NODES or len(edges) > MAX_EDGES:
        raise ValidationFailed(f"a plan graph holds at most {MAX_NODES} nodes, {MAX_EDGES} edges")
    checked: list[tuple[str, dict[str, Any]]] = []
    for index, node in enumerate(nodes):
        key = node.get("key")
        if not isinstance(key, str) or not key.strip() or len(key) > MAX_KEY:
            raise ValidationFailed(f"nodes[{index}].key must be 1-{MAX_KEY} characters")
        fields = {name: value for name, value in node.items() if name != "key"}
        checked.append((key, _with_index(f"nodes[{index}]", check_new_node, fields)))
    keys = [key for key, _ in checked]
    duplicates = sorted(key for key, count in Counter(keys).items() if count > 1)
    if duplicates:
        raise ValidationFailed(f"node keys must be unique; repeated: {', '.join(duplicates)}")
    triples = [_edge(index, edge, set(keys)) for index, edge in enumerate(edges)]
    if len(set(triples)) < len(triples):
        raise ValidationFailed("the same edge (nodes and type) is given more than once")
    topological_order(keys, [(a, b) for a, b, _ in triples])
    return checked, triples


def topological_order(keys: Sequence[str], edges: Sequence[tuple[str, str]]) -> list[str]:
    """Kahn's algorithm over all edges; CycleDetected names one cycle if there is any."""
    indegree = dict.fromkeys(keys, 0)
    successors: dict[str, list[str]] = {key: [] for key in keys}
    for source, target in edges:
        successors[source].append(target)
        indegree[target] += 1
    ready = deque(key for key in keys if indegree[key] == 0)
    order: list[str] = []
    while ready:
        key = ready.popleft()
        order.append(key)
        for target in successors[key]:
            indegree[target] -= 1
            if indegree[target] == 0:
                ready.append(target)
    if len(order) < len(keys):
        cycle = _one_cycle({key for key in keys if indegree[key] > 0}, edges)
        raise CycleDetected(
            "the plan graph has a cycle: " + " -> ".join([*cycle, cycle[0]]), cycle=cycle
        )
    return order


def _one_cycle(left: set[str], edges: Sequence[tuple[str, str]]) -> list[str]:
    """Nodes Kahn could not order each have a predecessor among them: walk back to a repeat."""
    predecessor = {target: source for source, target in edges if source in left and target in left}
    walk: list[str] = [min(left)]
    while walk[-1] not in walk[:-1]:
        walk.append(predecessor[walk[-1]])
    cycle = walk[walk.index(walk[-1]) : -1]
    return cycle[::-1]


def _edge(index: int, edge: dict[str, Any], keys: set[str]) -> tuple[str, str, PlanEdgeType]:
    source, target = edge.get("from_key"), edge.get("to_key")
    for name, key in (("from_key", source), ("to_key", target)):
        if key not in keys:
            raise ValidationFailed(f"edges[{index}].{name} {key!r} names no node of this graph")
    if source == target:
        raise ValidationFailed(f"edges[{index}] connects node {source!r} to itself")
    try:
        edge_type = PlanEdgeType(str(edge.get("edge_type")))
    except ValueError:
        allowed = ", ".join(t.value for t in PlanEdgeType)
        raise ValidationFailed(f"edges[{index}].edge_type must be one of: {allowed}") from None
    return str(source), str(target), edge_type


def _with_index(where: str, check: Any, fields: dict[str, Any]) -> dict[str, Any]:
    try:
        return dict(check(fields))
    except ValidationFailed as error:
        raise ValidationFailed(f"{where}: {error.message}", **error.details) from None
