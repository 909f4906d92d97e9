"""Shared plumbing for the local Java servers: Maven resolution, detached start, pid-file stop."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

POLL_S = 0.25


def say(name: str, message: str) -> None:
    print(f"[{name}] {message}", file=sys.stderr, flush=True)


def port_open(host: str, port: int, *, timeout_s: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return True
    except OSError:
        return False


def log_tail(path: Path, lines: int = 40) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return f"(no log at {path})"
    return "\n".join(text.splitlines()[-lines:])


def _tails(logs: list[Path]) -> str:
    return "".join(f"\n--- tail of {log} ---\n{log_tail(log, 30)}" for log in logs if log.exists())


def java_bin(java_home: str) -> str:
    java = Path(java_home) / "bin" / "java"
    if not java.is_file():
        raise RuntimeError(f"no java at {java}; set AGENTMEM_JAVA25_HOME to a JDK 25 home")
    return str(java)


def fetch_jars(name: str, version: str, *, home: Path, cache_dir: Path) -> None:
    """Server `name`'s jars at `version` into home/lib, Maven's cache under cache_dir/m2. Its pom
    is app/devenv/{name}.pom.xml and takes the version as the property {name}.version."""
    mvn_copy_dependencies(
        Path(__file__).with_name(f"{name}.pom.xml"),
        output_dir=home / "lib",
        repo_local=cache_dir / "m2",
        properties={f"{name}.version": version},
        name=name,
    )


def mvn_copy_dependencies(
    pom: Path, *, output_dir: Path, repo_local: Path, properties: dict[str, str], name: str
) -> None:
    """Resolve the pom's dependencies from Maven Central into output_dir (replaced atomically)."""
    mvn = shutil.which("mvn")
    if mvn is None:
        raise RuntimeError("mvn (Apache Maven) is not on PATH; it is needed once to fetch jars")
    staging = output_dir.with_name(output_dir.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    cmd = [
        mvn,
        "-q",
        "-B",
        "-Dstyle.color=never",
        "-f",
        str(pom),
        f"-Dmaven.repo.local={repo_local}",
        *(f"-D{k}={v}" for k, v in properties.items()),
        "dependency:copy-dependencies",
        "-DincludeScope=runtime",
        f"-DoutputDirectory={staging}",
    ]
    say(name, f"resolving jars from Maven Central into {output_dir} ...")
    started = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        output = (done.stdout + done.stderr)[-4000:]
        raise RuntimeError(f"mvn failed (exit {done.returncode}):\n{output}")
    shutil.rmtree(output_dir, ignore_errors=True)
    staging.rename(output_dir)
    count = len(list(output_dir.glob("*.jar")))
    say(name, f"resolved {count} jars in {time.monotonic() - started:.1f}s")


def _alive(pid: int) -> bool:
    try:  # reap it first if it is our own exited child, so a zombie does not count as alive
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def running_pid(pid_file: Path, *, marker: str) -> int | None:
    """The pid in pid_file if that process lives and its command line contains marker."""
    try:
        pid = int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return None
    if not _alive(pid):
        return None
    cmdline = Path(f"/proc/{pid}/cmdline")
    if cmdline.exists() and marker not in cmdline.read_bytes().replace(b"\0", b" ").decode(
        errors="replace"
    ):
        return None  # the pid was reused by an unrelated process
    return pid


def start_detached(
    cmd: list[str], *, cwd: Path, log_file: Path, pid_file: Path, env: dict[str, str] | None = None
) -> int:
    """Start cmd in its own session (survives the caller), output to log_file, pid to pid_file."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    pid_file.parent.mkdir(parents=True, exist_ok=True)
    with open(log_file, "ab") as log, open(os.devnull, "rb") as devnull:
        log.write(f"\n--- started {time.strftime('%Y-%m-%d %H:%M:%S')}: {' '.join(cmd)}\n".encode())
        log.flush()
        proc = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
            cmd,
            cwd=cwd,
            stdin=devnull,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
            start_new_session=True,
            close_fds=True,
        )
    pid_file.write_text(f"{proc.pid}\n")
    return proc.pid


def wait_ready(
    ready: Callable[[], bool],
    *,
    name: str,
    timeout_s: float,
    pid: int | None,
    logs: list[Path],
    progress: Callable[[], str] | None = None,
) -> None:
    """Poll ready() until true; raise RuntimeError (with the log tail) on timeout or early exit.

    progress() (when given) describes what the server is doing, for the periodic waiting line.
    """
    started = time.monotonic()
    next_note = started + 5
    while True:
        if ready():
            say(name, f"ready after {time.monotonic() - started:.1f}s")
            return
        now = time.monotonic()
        if pid is not None and not _alive(pid):
            raise RuntimeError(f"{name} exited during start-up.{_tails(logs)}")
        if now - started > timeout_s:
            raise RuntimeError(f"{name} not ready after {timeout_s:.0f}s.{_tails(logs)}")
        if now >= next_note:
            doing = progress() if progress else ""
            say(name, f"waiting ... {now - started:.0f}s" + (f" ({doing})" if doing else ""))
            next_note = now + 5
        time.sleep(POLL_S)


def _signal(pid: int, sig: signal.Signals) -> None:
    try:
        if os.getpgid(pid) == pid:  # start_new_session made it a group leader: signal the group
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)
    except ProcessLookupError:
        pass


def stop_pid_file(pid_file: Path, *, marker: str, name: str, timeout_s: float = 60) -> bool:
    """SIGTERM the process group of the pid in pid_file, SIGKILL after timeout_s."""
    pid = running_pid(pid_file, marker=marker)
    pid_file.unlink(missing_ok=True)
    if pid is None:
        return False
    say(name, f"stopping pid {pid} ...")
    started = time.monotonic()
    for sig, wait_s in ((signal.SIGTERM, timeout_s), (signal.SIGKILL, 10.0)):
        _signal(pid, sig)
        deadline = time.monotonic() + wait_s
        next_note = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(POLL_S)
            if time.monotonic() >= next_note:
                say(name, f"still shutting down ... {time.monotonic() - started:.0f}s")
                next_note += 10
        if not _alive(pid):
            break
        say(name, f"pid {pid} ignored {sig.name}")
    if _alive(pid):
        raise RuntimeError(f"{name} (pid {pid}) survived SIGKILL")
    say(name, f"stopped in {time.monotonic() - started:.1f}s")
    return True
