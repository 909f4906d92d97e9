"""The suite's Neo4j starts empty: its database's files go while no server runs, never while
one answers on the Bolt port. The real restart (an empty database comes back online, the
system database and password kept) was checked by hand against a local server."""

from __future__ import annotations

import socket
from pathlib import Path

from app.devenv.neo4j import clear_stopped_database
from app.settings import Settings


def _home(tmp_path: Path) -> Path:
    for kind in ("databases", "transactions"):
        for name in ("neo4j", "system"):
            (tmp_path / "data" / kind / name).mkdir(parents=True)
            (tmp_path / "data" / kind / name / "store").write_text("x")
    return tmp_path


def _settings(home: Path, port: int) -> Settings:
    return Settings(neo4j_uri=f"bolt://127.0.0.1:{port}", neo4j_home_dir=home)


def test_a_stopped_servers_database_is_removed_and_system_kept(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        free = sock.getsockname()[1]
    home = _home(tmp_path)
    assert clear_stopped_database(_settings(home, free))
    for kind in ("databases", "transactions"):
        assert not (home / "data" / kind / "neo4j").exists()
        assert (home / "data" / kind / "system" / "store").read_text() == "x"


def test_nothing_is_touched_while_the_bolt_port_answers(tmp_path: Path) -> None:
    home = _home(tmp_path)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        assert not clear_stopped_database(_settings(home, sock.getsockname()[1]))
    assert (home / "data" / "databases" / "neo4j" / "store").exists()
    assert (home / "data" / "transactions" / "neo4j" / "store").exists()
