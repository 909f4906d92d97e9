"""Search anchored on a record: graph distances (0 for the anchor itself), client-scoped."""

from __future__ import annotations

from typing import Any

from tests.integration.conftest import Caller
from tests.integration.search_helpers import search, wait_indexed
from tests.integration.test_plan_graph_api import new_node
from tests.integration.test_plans_api import create_plan

TEXT = "tankless water heater"


def _plan(caller: Caller) -> tuple[str, str]:
    plan = create_plan(caller, summary="Tankless water heater launch week")["id"]
    node = new_node(caller, plan, "Water heater reel", summary="Reel about tankless heaters")
    wait_indexed(caller)
    return plan, node["id"]


def _distances(hits: list[dict[str, Any]]) -> dict[str, Any]:
    return {hit["recordId"]: hit["graphDistance"] for hit in hits}


def test_the_anchor_itself_is_0_hops_and_its_node_1(alice: Caller) -> None:
    plan, node = _plan(alice)
    distances = _distances(search(alice, TEXT, k=5, anchorId=plan))
    assert distances == {plan: 0, node: 1}
    assert _distances(search(alice, TEXT, k=5, anchorId=plan, mmr=True)) == distances


def test_another_clients_anchor_adds_nothing(alice: Caller, bob: Caller) -> None:
    plan, _ = _plan(alice)
    bobs, bobs_node = _plan(bob)
    distances = _distances(search(bob, TEXT, k=5, anchorId=plan))
    assert distances == {bobs: None, bobs_node: None}
