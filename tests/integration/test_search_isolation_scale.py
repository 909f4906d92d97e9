"""Issue 5: a small client among large ones still gets its full top-k, and only its own records.

Five fixture clients (`scale-fixture-0..4`) hold 50,000 indexed ConversationEvents whose
vectors lie close to the query's embedding and whose text holds every query word: unfiltered,
both the vector index and BM25 would return only them. They are written straight to the graph
as already-indexed Searchable nodes (the worker sees nothing to do), once, and reused by later
runs (tests never wipe). The small client's 20 events go through the API and the real worker.
Last, the same promise when the crowd is the client's own forgotten records.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from neo4j import GraphDatabase, Session

from app.retrieval.embedder import Embedder
from app.retrieval.index_rows import client_key
from app.settings import Settings
from tests.integration.conftest import Caller, new_caller
from tests.integration.memory_helpers import FORGET, remember
from tests.integration.search_helpers import search, wait_indexed
from tests.integration.test_conversations_api import APPEND_MANY, create_thread, event_input

QUERY = "tankless water heater installation estimate"
CLIENTS, PER_CLIENT, BATCH = 5, 10_000, 2_000
MARKER = "scale-fixture-synthetic"  # embedding_model of the fixture nodes
NOISE = 0.02  # per component: cosine to the query stays about 0.99
SMALL_TEXTS = [
    f"{topic} for the water heater customer"
    for topic in (
        "Booked a Tuesday visit",
        "Sent the warranty PDF",
        "Asked about a gas line permit",
        "Quoted a descaling service",
        "Confirmed the garage location",
        "Shared financing options",
        "Followed up on the missed call",
        "Explained the energy rebate",
        "Scheduled the old tank removal",
        "Requested photos of the utility closet",
        "Offered a Saturday slot",
        "Noted the hard water in the area",
        "Answered a noise question",
        "Checked the venting route",
        "Sent the invoice",
        "Recommended a recirculation pump",
        "Logged the thermostat setting",
        "Promised a callback tomorrow",
        "Mentioned the ten year warranty",
        "Thanked them for the review",
    )
]
EXISTING = """
MATCH (n:Searchable) WHERE n.client_id = $client_id AND n.record_type = 'ConversationEvent'
  AND n.embedding_model = $marker
RETURN collect(n.sequence) AS sequences
"""
# Already indexed: indexed_version = updated_at, so the embedding worker leaves them alone.
CREATE_FIXTURE = """
UNWIND $sequences AS i
MERGE (n:ConversationEvent {id: $client_id + '-event-' + toString(i)})
ON CREATE SET n:Searchable, n.client_id = $client_id, n.thread_id = $client_id + '-thread',
  n.platform = 'instagram', n.direction = 'inbound', n.event_type = 'dm_message',
  n.external_ref = toString(i), n.sequence = i, n.text = $query + ' ' + toString(i),
  n.created_at = datetime('2020-01-01T00:00:00Z'), n.updated_at = datetime('2020-01-01T00:00:00Z'),
  n.indexed_version = datetime('2020-01-01T00:00:00Z'), n.record_type = 'ConversationEvent',
  n.search_client = $client_key, n.search_text = $query + ' ' + toString(i),
  n.search_thread_id = $client_id + '-thread', n.embedding_model = $marker,
  n.search_truncated = false,
  n.embedding = [x IN $vector | x + (rand() - 0.5) * $noise]
"""
UNFILTERED_VECTOR = """
CYPHER 25 MATCH (n:Searchable)
SEARCH n IN (VECTOR INDEX searchable_embedding FOR $vector LIMIT 50) SCORE AS score
RETURN n.client_id AS client_id
"""
UNFILTERED_TEXT = """
CALL db.index.fulltext.queryNodes('searchable_text', $lucene, {limit: 50}) YIELD node
RETURN node.client_id AS client_id
"""
EXACT_TOP = """
MATCH (n:Searchable) WHERE n.client_id = $client_id
RETURN n.id AS id ORDER BY vector.similarity.cosine(n.embedding, $vector) DESC LIMIT $k
"""


def _ensure_fixture(session: Session, vector: list[float]) -> None:
    for n in range(CLIENTS):
        client_id = f"scale-fixture-{n}"
        found = session.run(EXISTING, client_id=client_id, marker=MARKER).single()
        missing = sorted(set(range(PER_CLIENT)) - set(found["sequences"] if found else []))
        for start in range(0, len(missing), BATCH):
            params = {
                "sequences": missing[start : start + BATCH],
                "client_id": client_id,
                "client_key": client_key(client_id),
                "query": QUERY,
                "vector": vector,
                "noise": NOISE,
                "marker": MARKER,
            }
            session.run(CREATE_FIXTURE, params).consume()


@pytest.fixture(scope="module")
def world(settings: Settings, api_url: str) -> Iterator[dict[str, Any]]:
    embedder = Embedder(model_name=settings.embedding_model, dimensions=384)
    vector = embedder.embed_sync([QUERY])[0]
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        with driver.session(database=settings.neo4j_database) as session:
            _ensure_fixture(session, vector)
            small = new_caller(settings, api_url)
            thread = create_thread(small)["thread"]["id"]
            events = [
                event_input(thread, f"s-{i}-{uuid.uuid4().hex[:6]}", text)
                for i, text in enumerate(SMALL_TEXTS)
            ]
            results = small.data(APPEND_MANY, {"events": events})["appendConversationEvents"]
            wait_indexed(small)
            yield {
                "small": small,
                "ids": {r["event"]["id"] for r in results["results"]},
                "vector": vector,
                "session": session,
            }


def test_the_fixture_crowds_out_the_small_client_when_unfiltered(world: dict[str, Any]) -> None:
    """The premise: without the client filter the small client would get nothing."""
    session, small = world["session"], world["small"]
    total = session.run(
        "MATCH (n:Searchable) WHERE n.client_id STARTS WITH 'scale-fixture-' "
        "AND n.embedding_model = $marker RETURN count(n) AS n",
        marker=MARKER,
    ).single()["n"]
    assert total == CLIENTS * PER_CLIENT == 50_000
    near = [r["client_id"] for r in session.run(UNFILTERED_VECTOR, vector=world["vector"])]
    assert len(near) == 50 and small.client_id not in near
    lucene = f"search_text:({QUERY})"
    words = [r["client_id"] for r in session.run(UNFILTERED_TEXT, lucene=lucene)]
    assert len(words) == 50 and small.client_id not in words


@pytest.mark.parametrize("mode", ["VECTOR", "KEYWORD", "HYBRID"])
@pytest.mark.parametrize("k", [10, 20])
def test_small_client_gets_its_full_top_k_and_only_its_own(
    world: dict[str, Any], mode: str, k: int
) -> None:
    small: Caller = world["small"]
    for types in (None, ["CONVERSATION_EVENT"]):
        hits = search(small, QUERY, mode=mode, k=k, recordTypes=types)
        ids = [hit["recordId"] for hit in hits]
        assert len(ids) == k, (mode, k, types, len(ids))
        assert set(ids) <= world["ids"], (mode, k, types)
        assert len(set(ids)) == k


def test_vector_top_10_is_the_exact_top_10(world: dict[str, Any]) -> None:
    small: Caller = world["small"]
    exact = [
        r["id"]
        for r in world["session"].run(
            EXACT_TOP, client_id=small.client_id, vector=world["vector"], k=10
        )
    ]
    assert len(exact) == 10
    for types in (None, ["CONVERSATION_EVENT"]):
        hits = search(small, QUERY, mode="VECTOR", k=10, recordTypes=types)
        assert [hit["recordId"] for hit in hits] == exact


def test_forgotten_records_nearest_the_query_do_not_hide_live_ones(alice: Caller) -> None:
    """Forgotten (inactive) memory records stay in the vector index; more of them than the
    index's candidate pool, all nearer the query, must not leave the live ones unfound."""
    forgotten = [remember(alice, text=f"{QUERY} note {i}")["id"] for i in range(55)]
    live = {remember(alice, text=f"Plumbing visit remark {i}")["id"] for i in range(10)}
    for record_id in forgotten:
        alice.data(FORGET, {"id": record_id})
    wait_indexed(alice)
    for mode in ("VECTOR", "HYBRID"):
        hits = search(alice, QUERY, mode=mode, k=10, recordTypes=["MEMORY_RECORD"])
        assert {hit["recordId"] for hit in hits} == live, mode
