"""AGENTMEM_CORS_ALLOWED_ORIGINS: comma-separated origins, checked at start-up."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.settings import Settings


def test_origins_are_read_comma_separated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "AGENTMEM_CORS_ALLOWED_ORIGINS", "https://app.example.com, http://localhost:5173"
    )
    assert Settings().cors_allowed_origins == ("https://app.example.com", "http://localhost:5173")
    assert Settings(cors_allowed_origins="").cors_allowed_origins == ()  # the default: none


@pytest.mark.parametrize("origin", ["app.example.com", "https://app.example.com/ui", "ftp://x"])
def test_an_origin_with_a_path_or_no_scheme_is_refused(origin: str) -> None:
    with pytest.raises(ValidationError, match="is no origin: write scheme://host"):
        Settings(cors_allowed_origins=origin)
