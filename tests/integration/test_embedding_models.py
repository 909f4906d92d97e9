"""Embeddings per model and per index (seeds 001 and 004) against the real Neo4j and S3, over
HTTP: a second model, tiny and built here (16 dimensions, nothing downloaded), is built as one
client's memory index by `agentmem reembed` while search keeps the first model's index, resumed
after a stop, and switched to once complete; the other client's search never changes."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from neo4j import GraphDatabase

from app.cli.commands import main
from app.retrieval.embedder import Embedder
from app.retrieval.model_source import model_path
from app.retrieval.vector_index import LEGACY_MODEL, for_model
from app.settings import Settings
from tests.integration.conftest import Caller
from tests.integration.search_helpers import search, wait_indexed
from tests.integration.test_conversations_api import append, create_thread

DIMENSIONS = 16
STATUS = (
    "{ searchStatus { pending model indexes { model dimensions status clientScoped done total } } }"
)
QUARTZ = "Polished quartz crystal on the shelf."
ZEBRA = "A zebra grazes beside the river."
TEXTS = [QUARTZ, ZEBRA, "Invoice for the plumbing repair."]
QUESTION = "savanna animal"  # all-MiniLM-L6-v2: the zebra; the tiny model: the quartz
HAS = "MATCH (n:ConversationEvent {id: $id}) RETURN n[$property] IS NOT NULL AS has"


def build_tiny_model(folder: Path) -> Path:
    """A static-embedding model over the first model's tokenizer: every token a small constant
    direction, and 'savanna' and 'quartz' one direction, 'zebra' another (so the two models
    disagree about what a savanna animal is)."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import StaticEmbedding
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_path(LEGACY_MODEL) / "tokenizer.json"))
    weights = np.zeros((tokenizer.get_vocab_size(), DIMENSIONS), dtype=np.float32)
    weights[:, 0] = 0.1
    for word, axis in (("savanna", 1), ("quartz", 1), ("zebra", 2)):
        weights[tokenizer.token_to_id(word), axis] = 1.0
    module = StaticEmbedding(tokenizer, embedding_weights=weights)
    SentenceTransformer(modules=[module], device="cpu").save(str(folder))
    return folder


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory, settings: Settings) -> Iterator[str]:
    """The model's folder; its vector index is dropped after the module's tests."""
    folder = str(build_tiny_model(tmp_path_factory.mktemp("tiny-model")).resolve())
    yield folder
    index = for_model(folder, DIMENSIONS).index
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        driver.execute_query(f"DROP INDEX {index} IF EXISTS", database_=settings.neo4j_database)


@pytest.fixture
def forget_indexes(neo4j_session: Any) -> Iterator[list[str]]:
    """The clients whose memory indexes the test made: deleted after it, so that no process
    goes on embedding for a model folder that is gone."""
    scopes: list[str] = []
    yield scopes
    neo4j_session.run("MATCH (m:MemoryIndex) WHERE m.scope IN $s DELETE m", s=scopes).consume()


def _status(caller: Caller) -> dict[str, Any]:
    return dict(caller.data(STATUS)["searchStatus"])


def _own(caller: Caller) -> list[dict[str, Any]]:
    return [index for index in _status(caller)["indexes"] if index["clientScoped"]]


def seed_texts(caller: Caller) -> dict[str, str]:
    thread = create_thread(caller)["thread"]["id"]
    ids = {
        text: append(caller, thread, f"e-{n}", text)["event"]["id"] for n, text in enumerate(TEXTS)
    }
    wait_indexed(caller)
    return ids


def top_hit(caller: Caller, text: str = QUESTION) -> str:
    return str(search(caller, text, mode="VECTOR", k=1)[0]["recordId"])


def _reembed(capsys: Any, *argv: str) -> tuple[int, str]:
    code = main(["reembed", *argv])
    return code, capsys.readouterr().out


def test_a_local_folder_model_of_any_dimension(tiny_model: str) -> None:
    embedder = Embedder(model_name=tiny_model)
    vectors, cut = asyncio.run(embedder.embed_batch(["savanna", "zebra " * 5000]))
    assert embedder.dimension_sync() == DIMENSIONS and [len(v) for v in vectors] == [16, 16]
    assert cut == [False, False]  # static embeddings read every token
    with pytest.raises(ValueError, match="gives 16 dimensions, not 384"):
        Embedder(model_name=tiny_model, dimensions=384).dimension_sync()


def test_reembed_builds_a_clients_index_then_search_switches_to_it(
    alice: Caller,
    bob: Caller,
    tiny_model: str,
    capsys: Any,
    neo4j_session: Any,
    forget_indexes: list[str],
    settings: Settings,
) -> None:
    forget_indexes.append(alice.client_id)
    ids, bobs = seed_texts(alice), seed_texts(bob)
    assert top_hit(alice) == ids[ZEBRA] and _status(alice)["model"] == LEGACY_MODEL
    tiny = for_model(tiny_model, DIMENSIONS)

    # Stopped after one record: the index is building, search keeps the first model's.
    code, out = _reembed(
        capsys, "--model", tiny_model, "--client-id", alice.client_id, "--limit", "1"
    )
    assert code == 0 and "stopped after 1" in out
    [building] = _own(alice)
    assert (building["status"], building["dimensions"], building["done"]) == ("BUILDING", 16, 1)
    assert building["total"] >= 3
    time.sleep(settings.embedding_index_refresh_s)
    assert top_hit(alice) == ids[ZEBRA] and _status(alice)["model"] == LEGACY_MODEL

    # Written while it builds: the worker embeds the record with both models.
    thread = create_thread(alice)["thread"]["id"]
    geode = append(alice, thread, "geode", "A quartz geode from the desert.")["event"]["id"]
    wait_indexed(alice)
    assert neo4j_session.run(HAS, id=geode, property=tiny.property).single()["has"]

    # Run again, it goes on from there (the record of the first run and the one the worker
    # embedded are not embedded again), completes and switches.
    code, out = _reembed(capsys, "--model", tiny_model, "--client-id", alice.client_id)
    assert code == 0 and f"search uses {tiny_model} now" in out
    [active] = _own(alice)
    assert active["status"] == "ACTIVE" and active["done"] == active["total"] >= 4
    assert f"reembed: {active['total'] - 2} records embedded" in out
    deadline = time.monotonic() + 10 * settings.embedding_index_refresh_s
    while top_hit(alice) != ids[QUARTZ]:
        assert time.monotonic() < deadline, "search did not switch to the new index"
        time.sleep(0.2)
    assert _status(alice)["model"] == tiny_model
    hits = search(alice, QUESTION, mode="VECTOR", k=2)
    assert {hit["recordId"] for hit in hits} == {ids[QUARTZ], geode}

    # The other client: its records were not embedded, its search and status never changed.
    assert top_hit(bob) == bobs[ZEBRA] and _status(bob)["model"] == LEGACY_MODEL and not _own(bob)
    for record in bobs.values():
        assert not neo4j_session.run(HAS, id=record, property=tiny.property).single()["has"]

    # Rerun once active: nothing left to do; an unknown model is refused, naming the field.
    assert _reembed(capsys, "--model", tiny_model, "--client-id", alice.client_id)[0] == 0
    code = main(["reembed", "--model", "/no/such/model", "--client-id", alice.client_id])
    assert code == 2 and "neither a local folder" in capsys.readouterr().err
    code = main(["reembed", "--model", tiny_model, "--client-id", str(uuid.uuid4())])
    assert code == 2 and "no client with id" in capsys.readouterr().err


def test_every_search_mode_uses_the_clients_new_index(
    alice: Caller, tiny_model: str, capsys: Any, forget_indexes: list[str], settings: Settings
) -> None:
    forget_indexes.append(alice.client_id)
    ids = seed_texts(alice)
    assert _reembed(capsys, "--model", tiny_model, "--client-id", alice.client_id)[0] == 0
    deadline = time.monotonic() + 10 * settings.embedding_index_refresh_s
    while _status(alice)["model"] != tiny_model:
        assert time.monotonic() < deadline, "search did not switch to the new index"
        time.sleep(0.2)
    for mode in ("HYBRID", "KEYWORD", "VECTOR"):
        hits = search(alice, "quartz crystal", mode=mode, k=3)
        assert hits[0]["recordId"] == ids[QUARTZ], mode
    diverse = search(alice, QUESTION, mode="HYBRID", k=2, mmr=True)  # MMR reads its vectors
    assert diverse[0]["recordId"] == ids[QUARTZ]
