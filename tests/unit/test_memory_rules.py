"""Memory record rules: namespaces, prefixes, tags and expiry."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.domain.kernel.errors import ValidationFailed
from app.domain.memory import rules
from app.domain.memory import value_rules as values

NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)


def test_namespace_parts_join_in_a_fixed_order() -> None:
    parts = rules.namespace_parts({"path": ["a", "b"], "agent": "brad", "subject": "alice"})
    assert rules.join_namespace(parts) == "subject:alice/agent:brad/a/b"
    assert rules.join_namespace(rules.namespace_parts({"session_id": "s-1"})) == "session:s-1"
    assert rules.join_namespace(rules.namespace_parts({})) == ""


@pytest.mark.parametrize(
    "fields", [{"subject": "a/b"}, {"agent": "x:y"}, {"path": [""]}, {"path": ["p"] * 9}]
)
def test_bad_namespace_parts_are_refused(fields: dict[str, object]) -> None:
    with pytest.raises(ValidationFailed):
        rules.namespace_parts(fields)


def test_namespace_prefix_is_whole_canonical_segments() -> None:
    assert rules.check_namespace_prefix("subject:alice/notes") == "subject:alice/notes"
    assert rules.check_namespace_prefix("") is None
    for bad in ("subject:a b", "subject:alice/", "other:x/y:z"):
        with pytest.raises(ValidationFailed):
            rules.check_namespace_prefix(bad)


def test_tags_are_normalised_and_deduplicated() -> None:
    assert values.check_tags(["Q3 Plan", "q3-plan", " Food "]) == ["q3-plan", "food"]
    with pytest.raises(ValidationFailed):
        values.check_tags(["bad tag!"])


def test_expiry_is_in_the_future() -> None:
    assert values.check_expiry(None, 60, now=NOW) == NOW + timedelta(seconds=60)
    assert values.check_expiry(NOW + timedelta(hours=1), None, now=NOW) == NOW + timedelta(hours=1)
    assert values.check_expiry(None, None, now=NOW) is None
    for expires_at, ttl in [(NOW, None), (None, 0), (NOW + timedelta(hours=1), 5)]:
        with pytest.raises(ValidationFailed):
            values.check_expiry(expires_at, ttl, now=NOW)
    with pytest.raises(ValidationFailed):
        values.check_expiry(datetime(2030, 1, 1), None, now=NOW)  # no time zone
