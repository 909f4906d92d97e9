"""docker-compose.yml cannot run here (no Docker engine); hold its structure to the settings."""

from pathlib import Path

import yaml

from app.settings import Settings

REPO = Path(__file__).resolve().parents[2]


def compose() -> dict:
    return yaml.safe_load((REPO / "docker-compose.yml").read_text())


def test_services_ports_and_volumes() -> None:
    doc = compose()
    assert set(doc["services"]) == {"neo4j", "minio", "app"}
    defaults = Settings.model_construct()
    assert f"{defaults.neo4j_http_port}:7474" in doc["services"]["neo4j"]["ports"]
    assert f"{defaults.neo4j_bolt_port}:7687" in doc["services"]["neo4j"]["ports"]
    assert f"{defaults.s3_port}:9000" in doc["services"]["minio"]["ports"]
    for service in doc["services"].values():
        for volume in service.get("volumes", []):
            assert volume.split(":")[0] in doc["volumes"]


def test_neo4j_is_community_on_the_same_version_line() -> None:
    image = compose()["services"]["neo4j"]["image"]
    assert image == f"neo4j:{Settings.model_construct().neo4j_version}-community"


def test_app_environment_names_real_settings_and_matches_peers() -> None:
    doc = compose()
    env = doc["services"]["app"]["environment"]
    known = {f"AGENTMEM_{name.upper()}" for name in Settings.model_fields}
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
    assert set(doc["services"]["app"]["depends_on"]) == {"neo4j", "minio"}
    settings = Settings(**{k.removeprefix("AGENTMEM_").lower(): v for k, v in env.items()})
    assert not settings.manages_local_neo4j and not settings.manages_local_s3
