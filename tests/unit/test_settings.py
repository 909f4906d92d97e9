from pathlib import Path

import pytest
from pydantic import ValidationError

from app.settings import Settings


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings tests see only the variables they set, not the caller's AGENTMEM_* ones."""
    import os

    for name in list(os.environ):
        if name.startswith("AGENTMEM_"):
            monkeypatch.delenv(name)


def test_defaults_point_at_local_servers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    settings = Settings()
    assert settings.neo4j_uri == "bolt://127.0.0.1:7687"
    assert settings.manages_local_neo4j and settings.manages_local_s3
    assert settings.neo4j_bolt_port == 7687 and settings.s3_port == 9000


def test_environment_prefix_and_dotenv(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("AGENTMEM_S3_BUCKET=from-dotenv\nAGENTMEM_API_PORT=9999\n")
    monkeypatch.setenv("AGENTMEM_API_PORT", "8123")
    settings = Settings()
    assert settings.s3_bucket == "from-dotenv"
    assert settings.api_port == 8123  # the environment wins over .env


def test_remote_services_are_not_managed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTMEM_NEO4J_URI", "neo4j+s://abc.databases.neo4j.io")
    monkeypatch.setenv("AGENTMEM_S3_ENDPOINT", "s3.amazonaws.com")
    monkeypatch.setenv("AGENTMEM_S3_SECURE", "true")
    settings = Settings()
    assert not settings.manages_local_neo4j and not settings.manages_local_s3
    assert settings.s3_port == 443


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("AGENTMEM_NEO4J_URI", "http://127.0.0.1:7474"),
        ("AGENTMEM_S3_ENDPOINT", "http://127.0.0.1:9000"),
        ("AGENTMEM_API_PORT", "70000"),
    ],
)
def test_bad_values_fail_at_start_up(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError):
        Settings()


def test_secrets_do_not_print() -> None:
    settings = Settings.model_construct()
    assert "agentmem-local" not in repr(settings)


def test_the_request_read_budget_must_hold_the_largest_stored_object() -> None:
    with pytest.raises(ValidationError, match="request_read_max_bytes"):
        Settings(request_read_max_bytes=2 * 1024 * 1024, memory_max_content_bytes=4 * 1024 * 1024)
