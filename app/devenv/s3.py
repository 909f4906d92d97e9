"""A local S3-compatible server: s3proxy (Apache-2.0) with its filesystem backend, run on JDK 25.

Layout of cache_dir/s3proxy-<version>: lib/ (the jar-with-dependencies), conf/s3proxy.conf, logs/,
run/. Objects live under settings.s3_data_dir, one directory per bucket.
"""

from __future__ import annotations

import os
from pathlib import Path

import urllib3
from minio import Minio
from minio.error import S3Error

from app.artifacts.s3_client import client_over
from app.devenv import process
from app.settings import Settings

NAME = "s3proxy"
JVM_FLAGS = [
    "-Xmx512m",
    "-XX:+UseSerialGC",
    "-Dfile.encoding=UTF-8",
    "-Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener",
]


def s3proxy_home(settings: Settings) -> Path:
    return settings.s3_home


def _jar(settings: Settings) -> Path:
    version = settings.s3proxy_version
    return s3proxy_home(settings) / "lib" / f"s3proxy-{version}-jar-with-dependencies.jar"


def _host(settings: Settings) -> str:
    host = settings.s3_endpoint.rpartition(":")[0] or settings.s3_endpoint
    return host.strip("[]") or "127.0.0.1"


def _conf(settings: Settings) -> str:
    secret = settings.s3_secret_key.get_secret_value()
    host = _host(settings)
    url_host = f"[{host}]" if ":" in host else host
    lines = [
        f"s3proxy.endpoint=http://{url_host}:{settings.s3_port}",
        "s3proxy.authorization=aws-v2-or-v4",
        f"s3proxy.identity={settings.s3_access_key}",
        f"s3proxy.credential={secret}",
        "jclouds.provider=filesystem",
        f"jclouds.filesystem.basedir={settings.s3_data_dir}",
        f"jclouds.identity={settings.s3_access_key}",
        f"jclouds.credential={secret}",
        f"jclouds.region={settings.s3_region}",
    ]
    header = "# Written by app/devenv/s3.py on every provision; edits are overwritten.\n"
    return header + "\n".join(lines) + "\n"


def provision_s3(settings: Settings) -> Path:
    """Lay out the s3proxy home (jar fetched once from Maven Central); return the home."""
    home = s3proxy_home(settings)
    for sub in ("conf", "logs", "run"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    settings.s3_data_dir.mkdir(parents=True, exist_ok=True)
    if not _jar(settings).is_file():
        process.fetch_jars(NAME, settings.s3proxy_version, home=home, cache_dir=settings.cache_dir)
        if not _jar(settings).is_file():
            raise RuntimeError(f"mvn did not produce {_jar(settings)}")
    conf = home / "conf" / "s3proxy.conf"
    conf.touch(mode=0o600, exist_ok=True)
    os.chmod(conf, 0o600)  # it holds the secret key
    conf.write_text(_conf(settings))
    return home


def _client(settings: Settings, *, probe: bool = False) -> Minio:
    # probe: short timeouts and no retries, for polling a server that is still starting
    http = (
        urllib3.PoolManager(
            timeout=urllib3.Timeout(connect=2, read=5), retries=urllib3.Retry(total=0)
        )
        if probe
        else None
    )
    return client_over(settings, http)


def _answers(settings: Settings) -> bool:
    if not process.port_open(_host(settings), settings.s3_port):
        return False
    try:
        _client(settings, probe=True).list_buckets()
        return True
    except S3Error as exc:
        if exc.code in ("AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch"):
            raise RuntimeError(
                f"S3 at {settings.s3_endpoint} rejects the configured keys: {exc}"
            ) from exc
        return False
    except Exception:  # noqa: BLE001 - still starting: connection reset, HTTP 5xx, ...
        return False


def start_s3(settings: Settings, *, timeout_s: float = 60) -> bool:
    """Start s3proxy detached (or reuse what answers on the port); ensure settings.s3_bucket.

    True when this call started the process, False when it reused a running server.
    """
    home = s3proxy_home(settings)
    logs = [home / "logs" / "console.log"]
    started = False
    if process.port_open(_host(settings), settings.s3_port):
        process.say(NAME, f"something already answers on {settings.s3_endpoint}; reusing it")
        process.wait_ready(
            lambda: _answers(settings), name=NAME, timeout_s=timeout_s, pid=None, logs=logs
        )
    else:
        provision_s3(settings)
        conf = home / "conf" / "s3proxy.conf"
        cmd = [
            process.java_bin(settings.java25_home),
            *JVM_FLAGS,
            "-jar",
            str(_jar(settings)),
            "--properties",
            str(conf),
        ]
        process.say(
            NAME,
            f"starting s3proxy {settings.s3proxy_version} on "
            f"http://{settings.s3_endpoint} (data {settings.s3_data_dir}) ...",
        )
        pid = process.start_detached(
            cmd, cwd=home, log_file=logs[0], pid_file=home / "run" / "s3proxy.pid"
        )
        process.wait_ready(
            lambda: _answers(settings), name=NAME, timeout_s=timeout_s, pid=pid, logs=logs
        )
        started = True
    client = _client(settings)
    if not client.bucket_exists(settings.s3_bucket):
        client.make_bucket(settings.s3_bucket)
        process.say(NAME, f"created bucket {settings.s3_bucket!r}")
    return started


def stop_s3(settings: Settings) -> bool:
    """Stop the s3proxy started by start_s3; True if one was running."""
    home = s3proxy_home(settings)
    conf = home / "conf" / "s3proxy.conf"
    return process.stop_pid_file(home / "run" / "s3proxy.pid", marker=str(conf), name=NAME)
