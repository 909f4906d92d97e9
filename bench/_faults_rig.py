"""The faults benchmark's own Neo4j, S3 server and API process: their own homes and ports, so
that killing them never touches the servers of development or of the test suite."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from app.cli.admin import create_key, run_migrations
from app.devenv import process
from app.devenv.neo4j import start_neo4j, stop_neo4j
from app.devenv.s3 import start_s3, stop_s3
from app.model.enums import Role
from app.settings import Settings
from bench._common import free_port

REPO = Path(__file__).resolve().parents[1]


def rig_environment(base: Settings) -> dict[str, str]:
    """AGENTMEM_* variables for the rig: homes under cache_dir/faults, free ports."""
    home = base.cache_dir / "faults"
    bolt, http, s3, api = (free_port() for _ in range(4))
    return {
        "AGENTMEM_NEO4J_URI": f"bolt://127.0.0.1:{bolt}",
        "AGENTMEM_NEO4J_HTTP_PORT": str(http),
        "AGENTMEM_NEO4J_HOME_DIR": str(home / f"neo4j-{base.neo4j_version}"),
        "AGENTMEM_LOCAL_NEO4J": "true",
        "AGENTMEM_NEO4J_HEAP": "512m",
        "AGENTMEM_NEO4J_PAGECACHE": "256m",
        "AGENTMEM_S3_ENDPOINT": f"127.0.0.1:{s3}",
        "AGENTMEM_S3_HOME_DIR": str(home / f"s3proxy-{base.s3proxy_version}"),
        "AGENTMEM_LOCAL_S3": "true",
        "AGENTMEM_API_PORT": str(api),
        # The embedder would only compete with the load for the CPU.
        "AGENTMEM_EMBEDDING_WORKER_IN_PROCESS": "false",
    }


def _share_jars(base: Settings, rig: Settings) -> None:
    """Link the jars of an existing home (Maven is then not needed again)."""
    neo4j_homes = sorted(base.cache_dir.glob(f"neo4j-{base.neo4j_version}*"))
    for target, homes in (
        (
            rig.neo4j_home / "lib",
            [h / "lib" for h in neo4j_homes if (h / "lib/.complete").exists()],
        ),
        (rig.s3_home / "lib", [base.s3_home / "lib"] if (base.s3_home / "lib").is_dir() else []),
    ):
        if homes and not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(homes[0], target_is_directory=True)


@dataclass
class Rig:
    settings: Settings
    api: subprocess.Popen[bytes] | None = None
    keys: list[str] = field(default_factory=list)

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.settings.api_port}"

    def start(self, base: Settings, clients: int) -> None:
        _share_jars(base, self.settings)
        start_neo4j(self.settings)
        start_s3(self.settings)
        asyncio.run(run_migrations(self.settings))
        self.keys = [asyncio.run(self._key(n)) for n in range(clients)]
        self.start_api()

    async def _key(self, n: int) -> str:
        client = f"faults-{time.strftime('%Y%m%d%H%M%S')}-{n}"
        issued = await create_key(self.settings, client=client, role=Role.AGENT, agent_name="load")
        return issued.secret

    def start_api(self) -> None:
        """`python -m app serve` as its own process, its log in the rig's home."""
        log = (self.settings.cache_dir / "faults" / "api.log").open("ab")
        self.api = subprocess.Popen(  # noqa: S603 - fixed argv
            [sys.executable, "-m", "app", "serve"],
            cwd=REPO,
            env=os.environ | {"AGENTMEM_LOG_LEVEL": "WARNING"},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 120
        while not self.answers("/healthz"):
            if time.monotonic() > deadline or self.api.poll() is not None:
                raise RuntimeError(f"the API did not start; see {log.name}")
            time.sleep(0.1)

    def answers(self, path: str) -> bool:
        try:
            return httpx.get(self.api_url + path, timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def kill_api(self) -> None:
        assert self.api is not None
        self.api.send_signal(signal.SIGKILL)
        self.api.wait()

    def kill_neo4j(self) -> None:
        home = self.settings.neo4j_home
        _kill(home / "run" / "neo4j.pid", marker=f"--home-dir={home}")

    def start_neo4j(self) -> None:
        start_neo4j(self.settings)

    def stop_s3(self) -> None:
        stop_s3(self.settings)

    def start_s3(self) -> None:
        start_s3(self.settings)

    def close(self) -> None:
        if self.api is not None and self.api.poll() is None:
            self.api.terminate()
            self.api.wait(timeout=30)
        stop_neo4j(self.settings)
        stop_s3(self.settings)


def _kill(pid_file: Path, *, marker: str) -> None:
    """SIGKILL the server's process group and wait until it is gone."""
    pid = process.running_pid(pid_file, marker=marker)
    if pid is None:
        raise RuntimeError(f"no running server for {pid_file}")
    os.killpg(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while process.running_pid(pid_file, marker=marker) is not None:
        if time.monotonic() > deadline:
            raise RuntimeError(f"pid {pid} survived SIGKILL")
        time.sleep(0.05)
