"""The local-server helpers that need no server: the suite's own Neo4j, start-up progress."""

import json
import os
from pathlib import Path

import pytest

from app.devenv.neo4j import _debug_log_progress
from app.devenv.servers import SUITE_NEO4J_BOLT_PORT, suite_environment
from app.settings import Settings


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith("AGENTMEM_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def test_suite_gets_its_own_neo4j_home_and_ports(tmp_path: Path) -> None:
    settings = Settings(cache_dir=tmp_path)
    environment = suite_environment(settings)
    assert environment["AGENTMEM_NEO4J_URI"] == f"bolt://127.0.0.1:{SUITE_NEO4J_BOLT_PORT}"
    suite = Settings(
        cache_dir=tmp_path,
        neo4j_uri=environment["AGENTMEM_NEO4J_URI"],
        neo4j_http_port=int(environment["AGENTMEM_NEO4J_HTTP_PORT"]),
        neo4j_home_dir=Path(environment["AGENTMEM_NEO4J_HOME_DIR"]),
    )
    assert suite.neo4j_home != settings.neo4j_home
    assert suite.neo4j_home.parent == settings.neo4j_home.parent
    assert suite.neo4j_bolt_port != settings.neo4j_bolt_port
    assert suite.neo4j_http_port != settings.neo4j_http_port
    assert suite.manages_local_neo4j


def test_a_chosen_neo4j_is_used_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTMEM_NEO4J_URI", "bolt://127.0.0.1:7699")
    assert suite_environment(Settings()) == {}
    monkeypatch.setenv("AGENTMEM_NEO4J_URI", "neo4j+s://abc.databases.neo4j.io")
    assert suite_environment(Settings()) == {}


def _debug_line(message: str) -> str:
    return json.dumps({"time": "2026-11-26 02:14:05.337+0000", "level": "INFO", "message": message})


def test_start_up_progress_reads_only_new_debug_log_lines(tmp_path: Path) -> None:
    debug_log = tmp_path / "debug.log"
    debug_log.write_text(_debug_line("[neo4j/03cd5071] old run: 90% completed") + "\n")
    progress = _debug_log_progress(debug_log)
    assert progress() == ""
    with debug_log.open("a") as log:
        log.write(_debug_line("[neo4j/03cd5071]  40% completed") + "\n")
        log.write(_debug_line("[neo4j/03cd5071] Schema index cleanup job started: x") + "\n")
    assert progress() == "40% completed"


def test_start_up_progress_without_a_log(tmp_path: Path) -> None:
    assert _debug_log_progress(tmp_path / "missing.log")() == ""


def test_start_up_progress_flattens_banners(tmp_path: Path) -> None:
    debug_log = tmp_path / "debug.log"
    progress = _debug_log_progress(debug_log)
    rule = "\n" + " " * 40 + "-" * 60 + "\n"
    debug_log.write_text(_debug_line("[system/00000000] " + rule) + "\n")
    assert progress() == ""
    with debug_log.open("a") as log:
        log.write(_debug_line("[system/00000000] " + rule + "Config:\n  dbms.x=1" + rule) + "\n")
    assert progress().startswith("Config: dbms.x=1")
