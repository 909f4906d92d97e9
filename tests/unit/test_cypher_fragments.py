"""The Cypher fragments and builders (app/graph/fragments.py): their text for a few labels, what
they refuse, and that the domain states each fragment through them, once."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import OwnedNode
from app.graph import fragments as f
from app.graph.identifiers import Label
from app.graph.registry import entity
from app.model.enums import Role
from app.model.search_index import HIDDEN_INDEX_PROPERTIES, SHOWN_INDEX_PROPERTIES

APP = Path(__file__).resolve().parents[2] / "app"
LABEL_BUILDERS = {"OwnedNode": 0, "get_query": 0, "lock_query": 0, "update_query": 0, "own": 1}


def test_get_lock_and_update_queries_per_label() -> None:
    assert f.get_query("Asset", "asset") == (
        "MATCH (n:`Asset` {id: $id, client_id: $client_id})\nRETURN n {.*} AS asset"
    )
    assert f.lock_query("PlanNode", "node") == (
        "MATCH (n:`PlanNode` {id: $id, client_id: $client_id})\n"
        "SET n._lock = true REMOVE n._lock\nRETURN n {.*} AS node"
    )
    assert f.update_query("ConversationThread", "thread") == (
        "MATCH (n:`ConversationThread` {id: $id, client_id: $client_id})\n"
        "SET n += $changes, n.updated_at = $now\nRETURN n {.*} AS thread"
    )


def test_a_lock_query_may_return_more_of_the_locked_node() -> None:
    query = f.lock_query("Lesson", "lesson", "1 AS one", fields="ids: [n.id]")
    assert query.endswith("RETURN n {.*, ids: [n.id]} AS lesson, 1 AS one")


def test_an_owned_node_holds_its_label_queries_and_scopes_by_the_callers_client() -> None:
    node = OwnedNode("PublishPackage", "package", what="publish package")
    assert node.get == f.get_query("PublishPackage", "package")
    assert node.lock == f.lock_query("PublishPackage", "package")
    assert node.update == f.update_query("PublishPackage", "package")
    caller = Principal(client_id="c1", role=Role.ADMIN, key_id="k1")
    record_id = "0f8fad5b-d9cb-469f-a165-70867728950e"
    assert node.scope(caller, record_id.upper()) == {"id": record_id, "client_id": "c1"}
    with pytest.raises(ValidationFailed) as refused:
        node.scope(caller, "nope", field="package_id")
    assert refused.value.details["field"] == "package_id"
    with pytest.raises(ValueError):
        OwnedNode("Package", "package", what="publish package")


def test_every_model_label_is_accepted_and_written_quoted() -> None:
    for label in Label:
        assert f.get_query(label, "x").startswith(f"MATCH (n:`{label.value}` {{id: $id")
        assert f.own("v", label.value) == f"(v:`{label.value}` {{id: $id, client_id: $client_id}})"


@pytest.mark.parametrize("label", ["Nope", "asset", "Asset`) DETACH DELETE (x", "", "Asset:Plan"])
def test_labels_outside_the_enum_are_refused(label: str) -> None:
    for build in (f.get_query, f.lock_query, f.update_query):
        with pytest.raises(ValueError):
            build(label, "x")
    with pytest.raises(ValueError):
        f.own("v", label)


@pytest.mark.parametrize("bad", ["N", "n n", "n}) DETACH DELETE (m", "", "1n", "n.x"])
def test_variables_and_aliases_must_be_plain_names(bad: str) -> None:
    builders = [
        lambda: f.get_query("Plan", bad),
        lambda: f.lock(bad),
        lambda: f.live(bad),
        lambda: f.record_projection(bad),
        lambda: f.after_cursor(bad),
        lambda: f.merge_agent(bad),
    ]
    for build in builders:
        with pytest.raises(ValueError):
            build()


@pytest.mark.parametrize("bad", ["now", "$now; MATCH", "'x'", "$", "$props.a.b"])
def test_values_enter_only_as_parameter_references(bad: str) -> None:
    with pytest.raises(ValueError):
        f.own("v", "Plan", bad)
    with pytest.raises(ValueError):
        f.merge_agent(agent_name=bad)
    with pytest.raises(ValueError):
        f.merge_agent(clock=bad)


def test_liveness_with_either_clock() -> None:
    assert f.live("r") == "r.active AND (r.expires_at IS NULL OR r.expires_at > $now)"
    assert f.live("m", f.DB_CLOCK) == (
        "m.active AND (m.expires_at IS NULL OR m.expires_at > datetime())"
    )
    assert f.live("n", f.DB_CLOCK, flagless=True) == (
        "(n.active IS NULL OR n.active) AND (n.expires_at IS NULL OR n.expires_at > datetime())"
    )
    assert f.live("r", ordered_seek=True) == "r.active AND coalesce(r.expires_at > $now, true)"
    assert f.not_expired("o") == "(o.expires_at IS NULL OR o.expires_at > $now)"
    with pytest.raises(ValueError, match="clock"):
        f.live("r", "$then")


def test_compiled_reads_hide_exactly_what_live_hides() -> None:
    visible = entity("MemoryRecord").visible
    assert visible is not None
    assert visible("n0") == f.live("n0", f.DB_CLOCK)


def test_record_projection_nulls_every_hidden_index_property_and_only_those() -> None:
    projection = f.record_projection("r")
    assert projection.startswith("r {.*, ") and projection.endswith("}")
    nulled = set(re.findall(r"(\w+): null", projection))
    assert nulled == set(HIDDEN_INDEX_PROPERTIES)
    assert "embedding" in nulled and not nulled & SHOWN_INDEX_PROPERTIES


def test_keyset_cursor_and_order_in_both_directions() -> None:
    newest = f.after_cursor("e")
    assert "e.created_at < $after_created_at" in newest and "e.id < $after_id" in newest
    oldest = f.after_cursor("e", newest_first=False)
    assert "e.created_at > $after_created_at" in oldest and "e.id > $after_id" in oldest
    assert f.keyset_order("e") == "ORDER BY e.created_at DESC, e.id DESC LIMIT $limit"
    assert f.keyset_order("e", newest_first=False) == "ORDER BY e.created_at, e.id LIMIT $limit"


def test_keyset_page_counts_and_pages_the_same_filter() -> None:
    query = f.keyset_page("MATCH (x:Plan {client_id: $client_id})", "a OR b", "x", "x {.*}", "rows")
    # The filter is parenthesised: the cursor's AND never binds into the caller's OR.
    assert query.count("MATCH (x:Plan {client_id: $client_id})\nWHERE (a OR b)") == 2
    assert "RETURN count(x) AS total" in query
    assert f"AND {f.after_cursor('x')}\n  WITH x {f.keyset_order('x')}" in query
    assert "RETURN collect(x {.*}) AS rows" in query and query.strip().endswith(
        "RETURN total, rows"
    )


def test_merge_agent_creates_on_first_use_at_the_given_clock() -> None:
    assert f.merge_agent() == (
        "MERGE (a:Agent {client_id: $client_id, name: $agent_name})\n"
        "ON CREATE SET a.id = $agent_id, a.created_at = $now, a.updated_at = $now"
    )
    episode = f.merge_agent(agent_name="$props.agent_name", clock="$props.created_at")
    assert "name: $props.agent_name}" in episode
    assert "a.created_at = $props.created_at, a.updated_at = $props.created_at" in episode


def _domain_sources() -> list[Path]:
    return [*(APP / "domain").rglob("*.py"), APP / "retrieval" / "search_queries.py"]


def test_every_label_the_domain_passes_to_a_builder_is_a_model_label() -> None:
    labels, seen = {label.value for label in Label}, 0
    for path in _domain_sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                position = LABEL_BUILDERS.get(node.func.id)
                if position is None or len(node.args) <= position:
                    continue
                argument = node.args[position]
                if isinstance(argument, ast.Constant):
                    assert argument.value in labels, f"{path}:{node.lineno}"
                    seen += 1
    assert seen >= 15


def test_the_domain_writes_the_lock_the_liveness_and_the_agent_merge_only_through_fragments() -> (
    None
):
    hand_written = re.compile(
        r"_lock = true REMOVE|expires_at IS NULL OR|coalesce\(\w+\.expires_at|MERGE \(\w+:Agent "
        r"\{\{?client_id: \$client_id, name: \$(agent_name|props)"
    )
    found = [
        f"{path.relative_to(APP)}:{number}"
        for path in _domain_sources()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if hand_written.search(line)
    ]
    assert found == []
