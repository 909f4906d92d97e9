"""The deployment's embedding model (seeds 001 and 004), as an operator meets it: a new database
served with AGENTMEM_EMBEDDING_MODEL set to a local folder (the tiny 16-dimension model built
here) indexes and searches with that model; `agentmem reembed --model` then builds the first
model's index for the whole deployment while search keeps the tiny one, and switches every
client once it is complete. The deployment's index is the database's, so this runs on a Neo4j of
its own (a fresh home on free ports, sharing the suite's jars), not the suite's."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from neo4j import GraphDatabase

from app.cli.commands import main
from app.devenv.neo4j import provision_neo4j, start_neo4j, stop_neo4j
from app.model.enums import Role
from app.retrieval.vector_index import LEGACY_MODEL, for_model
from app.settings import Settings, load_settings
from tests.integration.conftest import Caller, _free_port, new_caller, serve_in_thread
from tests.integration.test_embedding_models import (
    DIMENSIONS,
    HAS,
    QUARTZ,
    STATUS,
    ZEBRA,
    build_tiny_model,
    seed_texts,
    top_hit,
)

INDEXES = "MATCH (m:MemoryIndex {scope: ''}) RETURN m.model AS model, m.status AS status"


@pytest.fixture(scope="module")
def own_neo4j(
    settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[pytest.MonkeyPatch]:
    """A Neo4j of this module's on a new home, and AGENTMEM_* pointing at it and at the tiny
    model for everything the module starts (the app, the `agentmem` commands)."""
    tmp = tmp_path_factory.mktemp("deployment-model")
    home = tmp / "neo4j"
    (home / "lib").parent.mkdir(parents=True)
    (home / "lib").symlink_to(settings.neo4j_home / "lib")  # the jars, not fetched again
    model = build_tiny_model(tmp / "tiny-model").resolve()
    with pytest.MonkeyPatch.context() as env:
        env.setenv("AGENTMEM_NEO4J_URI", f"bolt://127.0.0.1:{_free_port()}")
        env.setenv("AGENTMEM_NEO4J_HTTP_PORT", str(_free_port()))
        env.setenv("AGENTMEM_NEO4J_HOME_DIR", str(home))
        env.setenv("AGENTMEM_EMBEDDING_MODEL", str(model))
        own = load_settings()
        provision_neo4j(own)
        start_neo4j(own)
        try:
            yield env
        finally:
            stop_neo4j(own)


def _driver_rows(settings: Settings, query: str, **params: Any) -> list[dict[str, Any]]:
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        rows = driver.execute_query(query, params, database_=settings.neo4j_database).records
    return [row.data() for row in rows]


def _model(caller: Caller) -> str:
    return str(caller.data(STATUS)["searchStatus"]["model"])


def _until(condition: Any, settings: Settings, what: str) -> None:
    deadline = time.monotonic() + 10 * settings.embedding_index_refresh_s
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def test_the_configured_model_indexes_a_new_database_then_reembed_switches_the_deployment(
    own_neo4j: pytest.MonkeyPatch, capsys: Any, caplog: pytest.LogCaptureFixture
) -> None:
    configured = load_settings()
    tiny = configured.embedding_model
    tiny_index = for_model(tiny, DIMENSIONS)
    served = serve_in_thread(configured)
    url = next(served)
    try:
        alice = new_caller(configured, url, role=Role.AGENT)
        bob = new_caller(configured, url, role=Role.AGENT)

        # A new database: the configured model is the deployment's first index, and search
        # uses it (the tiny model puts the quartz nearest a savanna animal).
        assert _driver_rows(configured, INDEXES) == [{"model": tiny, "status": "active"}]
        ids, bobs = seed_texts(alice), seed_texts(bob)
        assert (
            _model(alice) == tiny and top_hit(alice) == ids[QUARTZ] and top_hit(bob) == bobs[QUARTZ]
        )
        record = ids[ZEBRA]
        assert _driver_rows(configured, HAS, id=record, property=tiny_index.property)[0]["has"]
        assert not _driver_rows(configured, HAS, id=record, property="embedding")[0]["has"]

        # Stopped after one record: the deployment's new index is building, search keeps tiny.
        assert main(["reembed", "--model", LEGACY_MODEL, "--limit", "1"]) == 0
        assert "stopped after 1" in capsys.readouterr().out
        time.sleep(configured.embedding_index_refresh_s)
        assert _model(alice) == tiny and top_hit(alice) == ids[QUARTZ]

        # Run again: it goes on, completes and switches every client's search.
        assert main(["reembed", "--model", LEGACY_MODEL]) == 0
        assert f"search uses {LEGACY_MODEL} now (retired: {tiny})" in capsys.readouterr().out
        _until(lambda: top_hit(alice) == ids[ZEBRA], configured, "alice's search did not switch")
        _until(lambda: top_hit(bob) == bobs[ZEBRA], configured, "bob's search did not switch")
        assert _model(alice) == _model(bob) == LEGACY_MODEL
        rows = sorted((r["model"], r["status"]) for r in _driver_rows(configured, INDEXES))
        assert rows == sorted([(LEGACY_MODEL, "active"), (tiny, "retired")])
    finally:
        next(served, None)

    # Served again with the old setting, the database's active index wins, and the log says
    # how to follow the setting; with the setting changed, nothing is said.
    for model, warned in ((tiny, True), (LEGACY_MODEL, False)):
        own_neo4j.setenv("AGENTMEM_EMBEDDING_MODEL", model)
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="app.retrieval.index_setup"):
            restarted = serve_in_thread(load_settings())
            again = new_caller(configured, next(restarted))
            try:
                assert _model(again) == LEGACY_MODEL
            finally:
                next(restarted, None)
        said = [m for m in caplog.messages if m.startswith("AGENTMEM_EMBEDDING_MODEL")]
        assert bool(said) is warned, said


def test_a_model_folder_that_is_not_there_stops_reembed_with_a_clear_error(
    own_neo4j: pytest.MonkeyPatch, capsys: Any, tmp_path: Path
) -> None:
    assert main(["reembed", "--model", str(tmp_path / "absent")]) == 2
    assert "neither a local folder" in capsys.readouterr().err
