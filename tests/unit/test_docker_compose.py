"""docker-compose.yml cannot run here (no Docker engine); hold its structure to the settings."""

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from app.cli.commands import _parser
from app.settings import Settings

REPO = Path(__file__).resolve().parents[2]
DEFAULT = {"neo4j", "minio", "app"}
SCALED = {"api-1", "api-2", "embed-worker", "proxy"}
REPLICAS = ("api-1", "api-2")
STORES_READY = {
    "neo4j": {"condition": "service_healthy"},
    "minio": {"condition": "service_started"},
}


def compose() -> dict:
    return yaml.safe_load((REPO / "docker-compose.yml").read_text())


def service_settings(doc: dict, name: str) -> Settings:
    """The settings a service's environment gives, checked against the servers it names."""
    env = {
        k: v for k, v in doc["services"][name]["environment"].items() if k.startswith("AGENTMEM_")
    }
    known = {f"AGENTMEM_{field.upper()}" for field in Settings.model_fields}
    assert set(env) <= known, set(env) - known
    neo4j_user, neo4j_password = doc["services"]["neo4j"]["environment"]["NEO4J_AUTH"].split("/")
    assert (env["AGENTMEM_NEO4J_USER"], env["AGENTMEM_NEO4J_PASSWORD"]) == (
        neo4j_user,
        neo4j_password,
    )
    minio = doc["services"]["minio"]["environment"]
    assert env["AGENTMEM_S3_ACCESS_KEY"] == minio["MINIO_ROOT_USER"]
    assert env["AGENTMEM_S3_SECRET_KEY"] == minio["MINIO_ROOT_PASSWORD"]
    assert env["AGENTMEM_NEO4J_URI"].startswith("bolt://neo4j:")
    assert env["AGENTMEM_S3_ENDPOINT"].split(":")[0] in doc["services"]
    assert doc["services"][name]["depends_on"] == STORES_READY
    settings = Settings(**{k.removeprefix("AGENTMEM_").lower(): v for k, v in env.items()})
    assert not settings.manages_local_neo4j and not settings.manages_local_s3
    return settings


def test_services_ports_and_volumes() -> None:
    doc = compose()
    assert set(doc["services"]) == DEFAULT | SCALED
    defaults = Settings.model_construct()
    assert f"{defaults.neo4j_http_port}:7474" in doc["services"]["neo4j"]["ports"]
    assert f"{defaults.neo4j_bolt_port}:7687" in doc["services"]["neo4j"]["ports"]
    assert f"{defaults.s3_port}:9000" in doc["services"]["minio"]["ports"]
    for service in doc["services"].values():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            assert source in doc["volumes"] or (REPO / source).is_file(), volume


def test_neo4j_is_community_on_the_same_version_line() -> None:
    image = compose()["services"]["neo4j"]["image"]
    assert image == f"neo4j:{Settings.model_construct().neo4j_version}-community"


def test_app_environment_names_real_settings_and_matches_peers() -> None:
    settings = service_settings(compose(), "app")
    assert settings.embedding_worker_in_process


def test_plain_up_starts_the_single_process_set_and_the_profile_adds_the_scaled_one() -> None:
    services = compose()["services"]
    assert {name for name, s in services.items() if "profiles" not in s} == DEFAULT
    assert {name for name, s in services.items() if s.get("profiles") == ["scaled"]} == SCALED


def test_replicas_serve_without_a_worker_only_behind_the_proxy() -> None:
    doc = compose()
    app_env = doc["services"]["app"]["environment"]
    for name in REPLICAS:
        replica = doc["services"][name]
        settings = service_settings(doc, name)
        assert not settings.embedding_worker_in_process
        assert replica["build"] == doc["services"]["app"]["build"]
        # Everything else as the single process has it; trusted forwarding only where no port
        # is published, so that only the proxy reaches the replica.
        assert replica["environment"].items() >= app_env.items()
        assert replica["environment"]["FORWARDED_ALLOW_IPS"] == "*" and "ports" not in replica
        probe = re.search(r"http://[^']+", " ".join(replica["healthcheck"]["test"]))
        assert probe is not None
        url = urlsplit(probe.group(0))
        assert (url.port, url.path) == (settings.api_port, "/readyz")


def test_one_embedding_worker_runs_on_its_own() -> None:
    doc = compose()
    worker = doc["services"]["embed-worker"]
    command: list[str] = worker["command"]
    assert command[:3] == ["python", "-m", "app"]
    assert _parser().parse_args(command[3:]).command == "embed-worker"
    assert worker["build"] == doc["services"]["app"]["build"]
    assert service_settings(doc, "embed-worker").embedding_worker_in_process  # it is the worker
    assert "ports" not in worker


def test_the_proxy_sends_to_both_replicas_once_they_are_ready() -> None:
    doc = compose()
    proxy: dict[str, Any] = doc["services"]["proxy"]
    assert proxy["image"] == "nginx:stable-alpine"
    assert proxy["depends_on"] == {name: {"condition": "service_healthy"} for name in REPLICAS}
    source, target, mode = proxy["volumes"][0].split(":")
    assert target == "/etc/nginx/conf.d/default.conf" and mode == "ro"
    conf = (REPO / source).read_text()
    upstream = re.search(r"upstream (\w+) \{(.*?)\}", conf, re.S)
    assert upstream is not None
    servers = set(re.findall(r"^\s*server (\S+?)[\s;]", upstream.group(2), re.M))
    ports = {service_settings(doc, name).api_port for name in REPLICAS}
    assert servers == {f"{name}:{port}" for name in REPLICAS for port in ports}
    assert re.search(rf"proxy_pass http://{upstream.group(1)};", conf)
    listen = re.search(r"^\s*listen (\d+);", conf, re.M)
    assert listen is not None
    assert [port.split(":")[1] for port in proxy["ports"]] == [listen.group(1)]
