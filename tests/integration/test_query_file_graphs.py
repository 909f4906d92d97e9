"""The lineage and episode query files as Neo4j Browser runs them (`:param graph => true`): the
last column, `graph`, lists as node values exactly the records the map columns hold, so that
Browser draws them; as the API runs them (graph false) it is null and the rest is unchanged."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from neo4j.graph import Node

from app.graph.cypher_files import api_params, named_query
from app.model.search_index import INDEX_PROPERTIES, is_hidden_property
from tests.integration.conftest import Caller
from tests.integration.seed_graph import seed_graph

# An agent's episode tree on the seeded plan: root -> child -> grandchild; the child READ the
# blueprint node and the asset and WROTE the asset (so replay finds the plan's snapshot twice).
EPISODES = """
MATCH (node:PlanNode {id: $ids.blueprint, client_id: $c}),
      (asset:Asset {id: $ids.asset, client_id: $c})
CREATE (agent:Agent {id: $e.agent, client_id: $c, name: 'graph-test', created_at: datetime(),
                     updated_at: datetime()})
CREATE (agent)-[:RAN]->(root:AgentEpisode {id: $e.root, client_id: $c, status: 'success',
        created_at: datetime(), updated_at: datetime()})
CREATE (agent)-[:RAN]->(child:AgentEpisode {id: $e.child, client_id: $c, status: 'success',
        created_at: datetime() + duration({seconds: 1}), updated_at: datetime()})
CREATE (agent)-[:RAN]->(grandchild:AgentEpisode {id: $e.grandchild, client_id: $c,
        status: 'running', created_at: datetime() + duration({seconds: 2}),
        updated_at: datetime()})
CREATE (root)-[:SPAWNED]->(child)-[:SPAWNED]->(grandchild)
CREATE (child)-[:READ {role: 'input', created_at: datetime()}]->(node)
CREATE (child)-[:READ {role: 'retrieved', created_at: datetime()}]->(asset)
CREATE (child)-[:WROTE {role: 'output', created_at: datetime()}]->(asset)
"""


@pytest.fixture
def records(alice: Caller, neo4j_session: Any) -> dict[str, str]:
    ids = seed_graph(neo4j_session, alice.client_id)
    episodes = {name: str(uuid.uuid4()) for name in ("agent", "root", "child", "grandchild")}
    neo4j_session.run(EPISODES, ids=ids, e=episodes, c=alice.client_id).consume()
    return ids | episodes


def run_file(session: Any, name: str, params: dict[str, Any]) -> dict[str, Any]:
    rows = list(session.run(named_query(name), params))
    assert len(rows) == 1, name
    assert rows[0].keys()[-1] == "graph", name
    return dict(rows[0].items())


def without_worker_fields(value: Any) -> Any:
    """The columns without what the embedding worker writes meanwhile (its claim, vectors,
    embedded_at): the API's own worker may index the seeded records between the two reads."""
    if isinstance(value, dict):
        return {
            k: without_worker_fields(v)
            for k, v in value.items()
            if k not in INDEX_PROPERTIES and not is_hidden_property(k)
        }
    if isinstance(value, list):
        return [without_worker_fields(v) for v in value]
    return value


def map_ids(value: Any) -> set[str]:
    """The `id` of every map in the columns (records and references to records)."""
    if isinstance(value, dict):
        own = {value["id"]} if isinstance(value.get("id"), str) else set()
        return own.union(*(map_ids(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(map_ids(v) for v in value))
    return set()


CASES = [
    ("trace", "variant", {}),
    ("upstream", "variant", {}),
    ("upstream", "package", {}),
    ("upstream", "asset", {}),
    ("downstream", "plan", {}),
    ("downstream", "campaign", {}),
    ("replay", "child", {}),
    ("replay", "root", {}),
    ("episode_tree", "child", {"max_depth": 5}),
    ("episode_tree", "root", {"max_depth": 1}),
]


@pytest.mark.parametrize(("name", "start", "extra"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_graph_holds_the_nodes_of_the_map_columns(
    alice: Caller,
    neo4j_session: Any,
    records: dict[str, str],
    name: str,
    start: str,
    extra: dict[str, Any],
) -> None:
    params = {"id": records[start], "client_id": alice.client_id} | extra
    browser = run_file(neo4j_session, name, params | {"graph": True})
    api = run_file(neo4j_session, name, api_params(params))
    assert api.pop("graph") is None
    graph = browser.pop("graph")
    # the map columns do not depend on $graph
    assert without_worker_fields(browser) == without_worker_fields(api)
    assert graph and all(isinstance(node, Node) for node in graph)
    ids = [node["id"] for node in graph]
    assert len(ids) == len(set(ids))  # each record once
    assert set(ids) == map_ids(api)
    assert all(node["client_id"] == alice.client_id for node in graph)


def test_what_the_graphs_hold(alice: Caller, neo4j_session: Any, records: dict[str, str]) -> None:
    def graph_ids(name: str, start: str, **extra: Any) -> set[str]:
        params = {"id": records[start], "client_id": alice.client_id, "graph": True} | extra
        return {node["id"] for node in run_file(neo4j_session, name, params)["graph"]}

    traced = "plan snapshot brandkit objective campaign blueprint asset variant prompt approval"
    lineage = {records[key] for key in (*traced.split(), "package", "run", "evidence")}
    assert graph_ids("trace", "variant") == lineage  # not the other variant, nor the post
    episodes = {records[key] for key in ("agent", "root", "child", "grandchild")}
    read = {records[key] for key in ("blueprint", "asset", "plan", "snapshot", "brandkit")}
    assert graph_ids("replay", "child") == episodes | read
    assert graph_ids("episode_tree", "child", max_depth=5) == episodes - {records["agent"]}
    assert graph_ids("episode_tree", "root", max_depth=1) == {records["root"], records["child"]}
