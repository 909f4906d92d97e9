"""Read plans: which variables shape a plan, and which executions may become one."""

from __future__ import annotations

from typing import Any

from graphql import FieldNode, OperationDefinitionNode, parse

from app.api.read.learning import ReadLearning
from app.api.read.plans import MAX_PLANS, ReadPlans

ROW = {"id": "x"}


def _learned(document: str, *, complete: bool = True) -> ReadLearning:
    """A learning as one execution of `document` notes it: every root field read and completed."""
    parsed = parse(document)
    operation = next(d for d in parsed.definitions if isinstance(d, OperationDefinitionNode))
    fragments = [d for d in parsed.definitions if not isinstance(d, OperationDefinitionNode)]
    learning = ReadLearning()
    for node in operation.selection_set.selections:
        assert isinstance(node, FieldNode)
        key = (node.alias or node.name).value
        learning.note_read(key, f"MATCH {key}", {"client_id": "c", "id": "i", "p1": 5})
        learning.note_root(key, dict if complete else None, [node], operation, fragments)  # type: ignore[arg-type]
    return learning


def _learn(plans: ReadPlans, document: str, variables: dict[str, Any], **kw: bool) -> None:
    learning = _learned(document, **kw)
    plans.learn(document, None, variables, learning, list(learning.reads))


def test_root_ids_do_not_shape_the_plan_other_variables_do() -> None:
    document = """query($id: ID!, $n: Int!, $on: Boolean!) {
      plan(id: $id) { nodes(first: $n) { title @include(if: $on) } } }"""
    plans = ReadPlans()
    _learn(plans, document, {"id": "a", "n": 1, "on": True})
    plan = plans.find(document, None, {"id": "b", "n": 1, "on": True, "unused": 3})
    assert plan is not None
    (root,) = plan.roots
    assert (root.id_variable, root.query, root.params) == ("id", "MATCH plan", {"p1": 5})
    assert plans.find(document, None, {"id": "b", "n": 2, "on": True}) is None
    assert plans.find(document, None, {"id": "b", "n": 1, "on": False}) is None
    assert plans.find(document, "Other", {"id": "b", "n": 1, "on": True}) is None


def test_an_id_variable_used_elsewhere_shapes_the_plan() -> None:
    document = """query($id: ID!) { plan(id: $id) { ...F } }
      fragment F on Plan { nodes(where: {planId: $id}) { title } }"""
    plans = ReadPlans()
    _learn(plans, document, {"id": "a"})
    assert plans.find(document, None, {"id": "a"}) is not None
    assert plans.find(document, None, {"id": "b"}) is None


def test_literal_ids_and_aliases_are_kept_per_root_field() -> None:
    document = '{ a: plan(id: "1") { id } b: asset(id: "2") { id } }'
    plans = ReadPlans()
    _learn(plans, document, {})
    plan = plans.find(document, None, {})
    assert plan is not None
    assert [(r.response_key, r.id_literal, r.id_variable) for r in plan.roots] == [
        ("a", "1", None),
        ("b", "2", None),
    ]


def test_only_complete_queries_become_plans_the_rest_are_not_noted_again() -> None:
    plans = ReadPlans()
    mutation = 'mutation { plan(id: "1") { id } }'
    _learn(plans, mutation, {})
    assert plans.find(mutation, None, {}) is None
    uncompleted = 'query { plan(id: "1") { id } }'
    _learn(plans, uncompleted, {}, complete=False)
    assert plans.find(uncompleted, None, {}) is None
    # A root field that is no noted read (here `viewer`) keeps the document from becoming one.
    learning = _learned('{ plan(id: "1") { id } }')
    plans.learn("mixed", None, {}, learning, ["viewer", "plan"])
    assert plans.find("mixed", None, {}) is None
    assert not any(plans.may_learn(doc, None) for doc in (mutation, uncompleted, "mixed"))
    assert plans.may_learn("mixed", "Named")


def test_a_built_value_is_completed_not_the_row() -> None:
    learning = ReadLearning()
    learning.note_read(
        "trace", "MATCH trace", {"id": "i", "client_id": "c"}, id_argument="variantId", build=len
    )
    assert learning.completes_row("trace") is False and learning.completes_row("other") is None
    document = 'query($v: ID!) { trace(variantId: $v, other: "x") { id } }'
    operation = parse(document).definitions[0]
    assert isinstance(operation, OperationDefinitionNode)
    (node,) = operation.selection_set.selections
    learning.note_root("trace", str, [node], operation, [])  # type: ignore[list-item]
    plans = ReadPlans()
    plans.learn(document, None, {"v": "a"}, learning, ["trace"])
    plan = plans.find(document, None, {"v": "b"})
    assert plan is not None
    (root,) = plan.roots
    assert (root.id_variable, root.build, root.params) == ("v", len, {})


def test_plans_are_bounded_least_recently_used_first() -> None:
    document = "query($id: ID!, $n: Int!) { plan(id: $id) { nodes(first: $n) { id } } }"
    plans = ReadPlans()
    for n in range(MAX_PLANS):
        _learn(plans, document, {"id": "a", "n": n})
    assert plans.find(document, None, {"id": "b", "n": 0}) is not None  # now the most recent
    _learn(plans, document, {"id": "a", "n": MAX_PLANS})
    assert plans.find(document, None, {"id": "b", "n": 1}) is None
    assert plans.find(document, None, {"id": "b", "n": 0}) is not None
    assert plans.find(document, None, {"id": "b", "n": MAX_PLANS}) is not None
