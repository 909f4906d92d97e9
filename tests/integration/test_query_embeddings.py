"""Query embeddings under a burst (issue 13): concurrent searches with distinct texts share model
calls through the micro-batcher, yet each finds its own answer, with the real model and server.

The records go in through the shared API server (and its embedding worker); the burst goes to a
second copy of the app in this process, so that its embedder's counters are readable."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import numpy as np

from app.retrieval.embedder import Embedder
from app.settings import Settings
from app.web.app import create_app
from tests.integration.conftest import Caller
from tests.integration.search_helpers import SEARCH
from tests.integration.test_search_api import TURNS, seed_thread

# Two texts per turn, none of them the turn's own words in the same order.
QUERIES = {
    "painting the kitchen cupboards green": TURNS[0],
    "getting the house ready for an open house": TURNS[0],
    "a new dog joined the family": TURNS[1],
    "my sister's golden retriever": TURNS[1],
    "paying taxes this quarter": TURNS[2],
    "keep the receipts for the tax return": TURNS[2],
    "running a marathon in Germany": TURNS[3],
    "weekly mileage for race training": TURNS[3],
    "opening a bread shop": TURNS[4],
    "sourdough samples and a menu board": TURNS[4],
}


async def _burst(settings: Settings, key: str) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Warms the model with one search, then sends every query at once; the answers and how
    the embedder's counters moved during the burst."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        embedder = app.state.services.embedder
        transport = httpx.ASGITransport(app=app)
        headers = {"Authorization": f"Bearer {key}"}
        async with httpx.AsyncClient(transport=transport, base_url="http://app") as http:

            async def search(text: str) -> dict[str, Any]:
                variables = {"input": {"text": text, "mode": "VECTOR", "k": 1}}
                response = await http.post(
                    "/graphql", json={"query": SEARCH, "variables": variables}, headers=headers
                )
                assert response.status_code == 200, response.text
                body = response.json()
                assert not body.get("errors"), body["errors"]
                return dict(body["data"]["search"])

            await search("warm up the model")
            before = embedder.stats()
            answers = await asyncio.gather(*(search(text) for text in QUERIES))
            after = embedder.stats()
    return list(answers), {name: after[name] - before[name] for name in after}


def test_a_burst_of_distinct_searches_shares_model_calls_and_each_finds_its_turn(
    alice: Caller, settings: Settings
) -> None:
    ids = seed_thread(alice)
    # A wait long enough for the whole burst to arrive; the worker runs in the shared server.
    burst_settings = settings.model_copy(
        update={"embedding_query_wait_ms": 200.0, "embedding_worker_in_process": False}
    )
    answers, moved = asyncio.run(_burst(burst_settings, alice.key))
    found = {
        text: answer["hits"][0]["recordId"] for text, answer in zip(QUERIES, answers, strict=True)
    }
    assert found == {text: ids[turn] for text, turn in QUERIES.items()}
    assert moved["query_texts_total"] + moved["cache_hits_total"] == len(QUERIES)
    assert moved["query_texts_total"] == len(QUERIES)  # distinct texts: nothing from the cache
    assert 1 <= moved["query_batches_total"] < len(QUERIES)
    assert moved["queue_depth"] == 0


def test_start_up_puts_the_model_on_onnx_and_search_scores_are_torchs(
    alice: Caller, settings: Settings
) -> None:
    """Start-up decides what runs the model (on onnxruntime: its export made once, before any
    request) without loading it; a search then embeds on onnxruntime, and its cosine scores
    against the worker's vectors are the ones sentence-transformers' vectors give."""
    ids = seed_thread(alice)  # embedded by the shared server's worker, on the same settings
    query = "a new dog joined the family"

    async def scenario() -> tuple[tuple[str | None, bool], dict[str, Any], str | None]:
        app = create_app(settings.model_copy(update={"embedding_worker_in_process": False}))
        async with app.router.lifespan_context(app):
            embedder = app.state.services.embedder
            started = (embedder.backend, embedder.loaded)
            transport = httpx.ASGITransport(app=app)
            headers = {"Authorization": f"Bearer {alice.key}"}
            async with httpx.AsyncClient(transport=transport, base_url="http://app") as http:
                variables = {"input": {"text": query, "mode": "VECTOR", "k": len(ids)}}
                response = await http.post(
                    "/graphql", json={"query": SEARCH, "variables": variables}, headers=headers
                )
            return started, response.json(), embedder.backend

    started, body, backend = asyncio.run(scenario())
    assert started == ("onnx", False) and backend == "onnx"
    assert not body.get("errors"), body["errors"]
    scores = {hit["recordId"]: hit["vectorScore"] for hit in body["data"]["search"]["hits"]}
    torch = Embedder(model_name=settings.embedding_model, backend="torch")
    vectors = np.asarray(torch.embed_sync([query, *ids]))
    cosines = dict(zip(ids.values(), vectors[1:] @ vectors[0], strict=True))
    assert set(scores) == set(cosines)
    for record, cosine in cosines.items():  # Neo4j's cosine score: (1 + cosine) / 2
        assert abs(scores[record] - (1 + cosine) / 2) < 1e-4, (record, scores[record], cosine)
