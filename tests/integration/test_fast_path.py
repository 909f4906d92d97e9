"""The GraphQL fast path, and the read plans learned on top of it, answer exactly what
graphql-core's own execution answers.

Two servers over the same services: one with the fast path, one without (setting
`graphql_fast_path`, which also turns read plans off). Every document goes to both with the same
key; the HTTP responses must be identical byte for byte, and the fast path or the plan must
actually have been taken where expected.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn

from app.api.read import plans as read_plans
from app.api.read.fast_path import STATS
from app.settings import Settings
from app.web.app import create_app
from tests.integration.conftest import Caller, new_caller
from tests.integration.fast_path_documents import CASES, CONNECTION, MISSING, UPSTREAM
from tests.integration.seed_graph import seed_graph

ROUND_TRIPS = {"X-Agentmem-Roundtrips": "1"}


def _serve(settings: Settings) -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("a fast-path test server did not start; see the log above")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


def _variant(settings: Settings, fast: bool) -> Settings:
    return settings.model_copy(
        update={"graphql_fast_path": fast, "embedding_worker_in_process": False}
    )


@pytest.fixture(scope="module")
def fast_url(settings: Settings) -> Iterator[str]:
    yield from _serve(_variant(settings, True))


@pytest.fixture(scope="module")
def plain_url(settings: Settings) -> Iterator[str]:
    yield from _serve(_variant(settings, False))


@pytest.fixture(scope="module")
def seeded(settings: Settings, fast_url: str) -> tuple[Caller, dict[str, str]]:
    """A client with two seeded plan graphs (JSON, datetimes and nulls filled in), and the id
    of a variant of another client."""
    from neo4j import GraphDatabase

    caller = new_caller(settings, fast_url)
    other = new_caller(settings, fast_url)
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        with driver.session(database=settings.neo4j_database) as session:
            ids = seed_graph(session, caller.client_id)
            seed_graph(session, caller.client_id)
            ids["foreign"] = seed_graph(session, other.client_id)["variant"]
            session.run(
                """MATCH (n:PlanNode {id: $blueprint})
                SET n.inputs = '{"topic": "pressure", "weights": [1, 2.5, null]}',
                    n.quality_score = 80, n.cost_estimate = 1.25, n.summary = 'ready to go'
                WITH n MATCH (p:Plan {id: $plan})
                SET p.time_window_start = datetime('2026-02-02T09:30:00.123456789Z'),
                    p.summary = null
                WITH p MATCH (pr:PromptArtifact {id: $prompt})
                SET pr.params = '{"seed": 7}', pr.input_refs = '["a", "b"]'""",
                ids,
            ).consume()
    return caller, ids


def _both(
    caller: Caller, fast_url: str, plain_url: str, query: str, variables: dict[str, Any]
) -> tuple[httpx.Response, httpx.Response]:
    body = {"query": query, "variables": variables}
    headers = {"Authorization": f"Bearer {caller.key}", **ROUND_TRIPS}
    fast = httpx.post(f"{fast_url}/graphql", json=body, headers=headers, timeout=30)
    plain = httpx.post(f"{plain_url}/graphql", json=body, headers=headers, timeout=30)
    return fast, plain


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_fast_path_answers_like_graphql_core(
    case: Any, seeded: tuple[Caller, dict[str, str]], fast_url: str, plain_url: str
) -> None:
    caller, ids = seeded
    _name, query, variables, expect = case
    completed, fallbacks = STATS.completed, STATS.fallbacks
    planned = read_plans.STATS.answered
    fast, plain = _both(caller, fast_url, plain_url, query, variables(ids))
    assert fast.status_code == plain.status_code == 200
    assert fast.text == plain.text
    assert "cypherRoundTrips" in fast.json()["extensions"]
    if expect == "fast":  # completed by the fast path, or by a plan learned from an earlier case
        assert STATS.completed > completed or read_plans.STATS.answered > planned
        assert STATS.fallbacks == fallbacks
        assert "errors" not in fast.json()
    if expect == "fallback":
        assert STATS.fallbacks > fallbacks and fast.json()["errors"]


def test_second_page_answers_alike(
    seeded: tuple[Caller, dict[str, str]], fast_url: str, plain_url: str
) -> None:
    caller, _ids = seeded
    first, _ = _both(caller, fast_url, plain_url, CONNECTION, {})
    cursor = first.json()["data"]["plans"]["pageInfo"]["endCursor"]
    fast, plain = _both(caller, fast_url, plain_url, CONNECTION, {"after": cursor})
    assert fast.text == plain.text
    assert fast.json()["data"]["plans"]["pageInfo"]["hasNextPage"] is False


def test_resolver_fields_are_left_to_graphql_core(
    seeded: tuple[Caller, dict[str, str]], fast_url: str, plain_url: str
) -> None:
    """promptText reads object storage in its own resolver: that type is completed by
    graphql-core (the stored key does not exist here, so both report the same error)."""
    caller, ids = seeded
    query = UPSTREAM.replace("prompts { id params }", "prompts { id promptText }")
    completed = STATS.completed
    fast, plain = _both(caller, fast_url, plain_url, query, {"id": ids["variant"]})
    assert fast.text == plain.text
    assert fast.json()["errors"][0]["path"] == ["upstream", "prompts", 0, "promptText"]
    assert STATS.completed > completed  # the other lists of the lineage still went fast


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_repeated_documents_answer_alike(
    case: Any, seeded: tuple[Caller, dict[str, str]], fast_url: str, plain_url: str
) -> None:
    """The second time, a document may be answered by its read plan: still the same bytes."""
    caller, ids = seeded
    _name, query, variables, _expect = case
    first, plain = _both(caller, fast_url, plain_url, query, variables(ids))
    again, _ = _both(caller, fast_url, plain_url, query, variables(ids))
    assert first.text == again.text == plain.text


NODE_TITLES = """query Titles($id: ID!, $n: Int!) {
  plan(id: $id) { id name nodes(first: $n) { title assets { variants { id status } } } }
  other: plan(id: "%s") { id }
}"""
VARIANT_BY_ID = "query($v: ID!) { assetVariant(id: $v) { id status approvals { status } } }"


def test_read_plan_answers_other_ids_alike(
    seeded: tuple[Caller, dict[str, str]], fast_url: str, plain_url: str
) -> None:
    caller, ids = seeded
    plans = caller.data("{ plans(first: 2) { nodes { id } } }")["plans"]["nodes"]
    first, second = (plan["id"] for plan in plans)
    query = NODE_TITLES % first
    stats = read_plans.STATS

    def same(variables: dict[str, Any], *, planned: bool) -> dict[str, Any]:
        answered = stats.answered
        fast, plain = _both(caller, fast_url, plain_url, query, variables)
        assert fast.text == plain.text
        assert stats.answered == answered + int(planned)
        return dict(fast.json())

    learned = stats.learned
    same({"id": first, "n": 1}, planned=False)
    assert stats.learned == learned + 1
    body = same({"id": second, "n": 1}, planned=True)
    assert body["data"]["plan"]["id"] == second and body["data"]["other"]["id"] == first
    assert body["extensions"] == {"cypherRoundTrips": 2}  # one query per root field
    # `n` shapes the compiled query: another value is another plan, learned anew.
    assert len(same({"id": second, "n": 2}, planned=False)["data"]["plan"]["nodes"]) == 2
    same({"id": first, "n": 2}, planned=True)
    # Whatever the plan cannot answer exactly goes back to strawberry, errors and all.
    declined = stats.declined
    missing = same({"id": MISSING, "n": 1}, planned=False)
    assert missing["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    assert same({"id": "nope", "n": 1}, planned=False)["errors"][0]["extensions"]["code"] == (
        "VALIDATION"
    )
    assert "errors" in same({"id": 7, "n": 1}, planned=False)
    assert stats.declined == declined + 3


def test_read_plan_keeps_clients_apart(
    seeded: tuple[Caller, dict[str, str]], fast_url: str, plain_url: str
) -> None:
    """A plan learned for one client answers another client's id exactly as a missing id."""
    caller, ids = seeded
    _both(caller, fast_url, plain_url, VARIANT_BY_ID, {"v": ids["variant"]})
    answered = read_plans.STATS.answered
    mine, _ = _both(caller, fast_url, plain_url, VARIANT_BY_ID, {"v": ids["variant"]})
    assert read_plans.STATS.answered == answered + 1
    assert mine.json()["data"]["assetVariant"]["id"] == ids["variant"]
    foreign, plain = _both(caller, fast_url, plain_url, VARIANT_BY_ID, {"v": ids["foreign"]})
    missing, _ = _both(caller, fast_url, plain_url, VARIANT_BY_ID, {"v": MISSING})
    assert foreign.text == plain.text == missing.text.replace(MISSING, ids["foreign"])
    assert foreign.json()["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    assert read_plans.STATS.answered == answered + 1
