"""Constraint documents without a server: per-kind schemas, diffs, and which facts a new
knowledge base version writes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.domain.constraints.content import encode
from app.domain.constraints.diff import diff_contents
from app.domain.constraints.facts import fact_changes
from app.domain.constraints.schemas import SCHEMAS, check_content, json_schema
from app.domain.kernel.errors import ValidationFailed
from app.model.enums import ConstraintKind

NOW = datetime(2026, 11, 26, tzinfo=UTC)


def _field(kind: ConstraintKind, content: object) -> str:
    with pytest.raises(ValidationFailed) as raised:
        check_content(kind, content)
    return str(raised.value.details["field"])


def test_every_kind_has_a_strict_schema() -> None:
    assert set(SCHEMAS) == set(ConstraintKind)
    for kind in ConstraintKind:
        assert json_schema(kind)["additionalProperties"] is False


def test_content_is_kept_as_given_and_trimmed() -> None:
    checked = check_content(ConstraintKind.BRANDKIT, {"name": "  Acme ", "tone": ["warm"]})
    assert checked == {"name": "Acme", "tone": ["warm"]}


def test_violations_name_the_field() -> None:
    assert _field(ConstraintKind.BRANDKIT, {"name": "A", "colour": "red"}) == "content.colour"
    assert _field(ConstraintKind.BRANDKIT, {}) == "content.name"
    bad_color = {"name": "A", "colors": [{"name": "blue", "hex": "blue"}]}
    assert _field(ConstraintKind.BRANDKIT, bad_color) == "content.colors[0].hex"
    policy = {"policies": [{"action": "publish", "mode": "sometimes"}]}
    assert _field(ConstraintKind.AUTONOMY_POLICIES, policy) == "content.policies[0].mode"
    twice = {"blueprints": [{"key": "a", "name": "A"}, {"key": "a", "name": "B"}]}
    assert _field(ConstraintKind.BLUEPRINT_SET, twice) == "content.blueprints[1].key"
    assert _field(ConstraintKind.KNOWLEDGE_BASE, ["not", "an", "object"]) == "content"


def test_diff_matches_list_items_by_their_key() -> None:
    before = {"facts": [{"key": "a", "statement": "A"}, {"key": "b", "statement": "B"}]}
    after = {
        "facts": [
            {"key": "new", "statement": "N"},
            {"key": "a", "statement": "A"},
            {"key": "b", "statement": "B2"},
        ]
    }
    changes = [(c.path, c.op, c.before, c.after) for c in diff_contents(before, after)]
    assert changes == [
        ("facts[b].statement", "changed", "B", "B2"),
        ("facts[new]", "added", None, {"key": "new", "statement": "N"}),
    ]
    assert diff_contents(before, before) == []
    assert [c.op for c in diff_contents({"voice": "x"}, {})] == ["removed"]


def test_a_new_version_writes_only_new_and_changed_facts() -> None:
    current = [
        {"id": "f1", "key": "same", "statement": "S", "tags": None},
        {"id": "f2", "key": "changed", "statement": "C"},
        {"id": "f3", "key": "removed", "statement": "R"},
    ]
    wanted = [
        {"key": "same", "statement": "S", "tags": []},
        {"key": "changed", "statement": "C2"},
        {"key": "added", "statement": "A", "topic": "t"},
    ]
    changes = fact_changes(current, wanted, client_id="c", document_id="d", version=3, now=NOW)
    assert sorted(changes.superseded) == ["f2", "f3"]
    assert [(f["key"], f["from_version"], f["status"]) for f in changes.created] == [
        ("changed", 3, "active"),
        ("added", 3, "active"),
    ]
    assert changes.created[1]["topic"] == "t" and "to_version" not in changes.created[1]


def test_free_form_settings_diff_as_values_whatever_their_names() -> None:
    before = {"blueprints": [{"key": "a", "name": "A", "overrides": {"facts": ["warranty"]}}]}
    after = {"blueprints": [{"key": "a", "name": "A", "overrides": {"facts": ["hours"]}}]}
    changes = [(c.path, c.before, c.after) for c in diff_contents(before, after)]
    assert changes == [("blueprints[a].overrides.facts", ["warranty"], ["hours"])]


def test_numbers_json_cannot_carry_are_refused() -> None:
    infinite = {"policies": [{"action": "boost", "mode": "autonomous", "limit": float("inf")}]}
    assert _field(ConstraintKind.AUTONOMY_POLICIES, infinite) == "content.policies[0].limit"
    nan = {"providers": [{"name": "p", "capability": "text", "settings": {"t": float("nan")}}]}
    assert _field(ConstraintKind.PROVIDER_CONFIG, nan) == "content"
    with pytest.raises(ValidationFailed, match="Infinity or NaN"):
        encode({"facts": [], "x": float("inf")})  # the last check before anything is stored
