"""A local Neo4j Community server assembled from Maven Central jars (no tarball), run on JDK 25.

Layout of settings.neo4j_home: lib/ (jars), conf/neo4j.conf, data/, logs/, run/, plugins/, import/.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, DriverError, Neo4jError

from app.devenv import process
from app.settings import Settings

NAME = "neo4j"
HOST = "127.0.0.1"
MAIN_CLASS = "org.neo4j.server.Neo4jCommunity"
ADMIN_CLASS = "org.neo4j.cli.AdminTool"
_DATABASE_PREFIX = re.compile(r"\[[a-z0-9_.-]+/[0-9a-f]{8}\]")
JVM_FLAGS = (
    "--sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED"
    " --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED"
    " --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED"
    " -XX:+UseG1GC -XX:-OmitStackTraceInFastThrow -XX:+DisableExplicitGC -Dfile.encoding=UTF-8"
    " -Djdk.nio.maxCachedBufferSize=1024 -Dio.netty.tryReflectionSetAccessible=true"
    " -Dlog4j2.disable.jmx=true --add-modules=jdk.incubator.vector"
).split()


def _java(settings: Settings, *args: str) -> list[str]:
    """The java command line with the home's jars on the classpath."""
    home = settings.neo4j_home
    return [process.java_bin(settings.java25_home), *JVM_FLAGS, "-cp", f"{home / 'lib'}/*", *args]


def _env(home: Path) -> dict[str, str]:
    return {"NEO4J_HOME": str(home), "NEO4J_CONF": str(home / "conf")}


def _lib_ready(home: Path, version: str) -> bool:
    lib = home / "lib"
    return (lib / f"neo4j-{version}.jar").is_file() and (lib / ".complete").is_file()


def _conf(settings: Settings, home: Path) -> str:
    dirs = {d: home / d for d in ("data", "logs", "run", "lib", "plugins", "import")}
    lines = [f"server.directories.{d}={path}" for d, path in dirs.items()] + [
        "server.default_listen_address=127.0.0.1",
        "server.default_advertised_address=127.0.0.1",
        "server.bolt.enabled=true",
        f"server.bolt.listen_address={HOST}:{settings.neo4j_bolt_port}",
        "server.http.enabled=true",
        f"server.http.listen_address={HOST}:{settings.neo4j_http_port}",
        "server.https.enabled=false",
        f"server.memory.heap.initial_size={settings.neo4j_heap}",
        f"server.memory.heap.max_size={settings.neo4j_heap}",
        f"server.memory.pagecache.size={settings.neo4j_pagecache}",
        "dbms.security.auth_enabled=true",
        # Only affects databases created from now on (a fresh home): queries may omit `CYPHER 25`.
        "db.query.default_language=CYPHER_25",
        "dbms.usage_report.enabled=false",
        "dbms.fleet_manager.enabled=false",
        # Bolt's netty shutdown otherwise idles ~15 s before a SIGTERM'd server exits.
        "internal.dbms.bolt.netty_server_shutdown_quiet_period_duration=0s",
        "internal.dbms.bolt.netty_server_shutdown_timeout=2s",
        "internal.server.bolt.thread_pool_shutdown_wait_time=1s",
        "internal.server.bolt.connection_shutdown_wait_time=1s",
    ]
    header = "# Written by app/devenv/neo4j.py on every provision; edits are overwritten.\n"
    return header + "\n".join(lines) + "\n"


def _set_initial_password(settings: Settings, home: Path) -> None:
    """neo4j-admin dbms set-initial-password; it only takes effect before the first start."""
    password = settings.neo4j_password.get_secret_value()
    stamp = home / "data" / "dbms" / ".initial-password.sha256"
    digest = hashlib.sha256(f"{settings.neo4j_user}\0{password}".encode()).hexdigest()
    if (home / "data" / "databases" / "system").exists() or (
        stamp.is_file() and stamp.read_text() == digest
    ):
        return
    if settings.neo4j_user != "neo4j":
        process.say(
            NAME, f"note: the initial password is for user 'neo4j', not {settings.neo4j_user!r}"
        )
    process.say(NAME, "setting the initial password ...")
    cmd = _java(settings, ADMIN_CLASS, "dbms", "set-initial-password", password)
    done = subprocess.run(  # noqa: S603 - fixed argv
        cmd, cwd=home, env={**os.environ, **_env(home)}, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"set-initial-password failed:\n{(done.stdout + done.stderr)[-2000:]}")
    stamp.write_text(digest)


def provision_neo4j(settings: Settings) -> Path:
    """Lay out settings.neo4j_home (jars fetched once from Maven Central); return the home."""
    home = settings.neo4j_home
    for sub in ("conf", "data", "logs", "run", "plugins", "import"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    if not _lib_ready(home, settings.neo4j_version):
        process.fetch_jars(NAME, settings.neo4j_version, home=home, cache_dir=settings.cache_dir)
        (home / "lib" / ".complete").write_text(settings.neo4j_version + "\n")
    conf = home / "conf" / "neo4j.conf"
    conf.write_text(_conf(settings, home))
    _set_initial_password(settings, home)
    return home


def _login_ok(settings: Settings) -> bool:
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    try:
        with GraphDatabase.driver(settings.neo4j_uri, auth=auth, connection_timeout=2.0) as driver:
            driver.verify_connectivity()
        return True
    except AuthError as exc:
        raise RuntimeError(
            f"Neo4j at {settings.neo4j_uri} rejects the configured login: {exc}"
        ) from exc
    except (DriverError, Neo4jError, OSError):
        return False


def _debug_message(line: str) -> str:
    """The message of one JSON debug.log line, without its "[database/id]" prefix."""
    try:
        entry = json.loads(line)
    except ValueError:
        return ""
    message = entry.get("message") if isinstance(entry, dict) else None
    if not isinstance(message, str):
        return ""
    # Banner entries are many lines of rules and settings; the first words say enough.
    return " ".join(_DATABASE_PREFIX.sub("", message).split()).strip("-* ")


def _debug_log_progress(debug_log: Path) -> Callable[[], str]:
    """What the server last wrote to debug.log since now: recovery percentages, database
    start-up steps. Index clean-up lines (one per index) are skipped as noise."""
    offset = debug_log.stat().st_size if debug_log.is_file() else 0

    def progress() -> str:
        if not debug_log.is_file():
            return ""
        with debug_log.open("rb") as log:
            log.seek(max(offset, debug_log.stat().st_size - 65_536))
            lines = log.read().decode("utf-8", "replace").splitlines()
        for line in reversed(lines):
            message = _debug_message(line)
            if message and "cleanup job" not in message:
                return message[:120]
        return ""

    return progress


def start_neo4j(settings: Settings) -> bool:
    """Start the local server detached (or reuse one already on the Bolt port); wait for a login.

    True when this call started the process, False when it reused a running server.
    """
    home = settings.neo4j_home
    timeout_s = settings.neo4j_start_timeout_s
    logs = [home / "logs" / "neo4j.log", home / "logs" / "console.log"]
    progress = _debug_log_progress(home / "logs" / "debug.log")

    # HTTP (Browser) is the last connector Neo4j opens; Bolt answers before start-up can still fail.
    def ready() -> bool:
        return process.port_open(HOST, settings.neo4j_http_port) and _login_ok(settings)

    if process.port_open(HOST, settings.neo4j_bolt_port):
        process.say(NAME, f"Bolt already answers on {HOST}:{settings.neo4j_bolt_port}; reusing it")
        reuse_ready = lambda: _login_ok(settings)  # noqa: E731 - may be a Neo4j without HTTP
        process.wait_ready(
            reuse_ready, name=NAME, timeout_s=timeout_s, pid=None, logs=logs, progress=progress
        )
        return False
    if process.port_open(HOST, settings.neo4j_http_port):
        raise RuntimeError(
            f"port {settings.neo4j_http_port} (Neo4j HTTP) is taken by another process"
        )
    provision_neo4j(settings)
    cmd = _java(settings, MAIN_CLASS, f"--home-dir={home}", f"--config-dir={home / 'conf'}")
    cmd[1:1] = [f"-Xms{settings.neo4j_heap}", f"-Xmx{settings.neo4j_heap}"]
    process.say(
        NAME,
        f"starting Neo4j {settings.neo4j_version} (bolt {HOST}:"
        f"{settings.neo4j_bolt_port}, http {HOST}:{settings.neo4j_http_port}) ...",
    )
    pid = process.start_detached(
        cmd,
        cwd=home,
        log_file=home / "logs" / "console.log",
        pid_file=home / "run" / "neo4j.pid",
        env=_env(home),
    )
    process.wait_ready(ready, name=NAME, timeout_s=timeout_s, pid=pid, logs=logs, progress=progress)
    return True


def clear_stopped_database(settings: Settings) -> bool:
    """Delete the files of the service's database while no server runs, so that the next start
    creates it empty (the system database, with the password, stays). False, touching nothing,
    when something answers on the Bolt port: it may be in use."""
    if process.port_open(HOST, settings.neo4j_bolt_port):
        return False
    data = settings.neo4j_home / "data"
    for kind in ("databases", "transactions"):
        shutil.rmtree(data / kind / settings.neo4j_database, ignore_errors=True)
    return True


def stop_neo4j(settings: Settings) -> bool:
    """Stop the server started by start_neo4j; True if one was running."""
    home = settings.neo4j_home
    return process.stop_pid_file(
        home / "run" / "neo4j.pid",
        marker=f"--home-dir={home}",
        name=NAME,
        timeout_s=settings.neo4j_stop_timeout_s,
    )
