"""Workspace rules with no I/O: paths, content and media types, list cursors, and manifests
with their diff by hashes."""

from __future__ import annotations

import base64
import hashlib
import json

import pytest

from app.domain.agents.cycle_outputs import check_outputs, check_workspace_cues
from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.workspace_paths import MAX_CUES, check_cues, check_path, check_prefix
from app.domain.workspaces import manifest as m
from app.domain.workspaces import rules
from app.domain.workspaces.reads import decode_cursor, encode_cursor

WORKSPACE = "123e4567-e89b-12d3-a456-426614174000"


@pytest.mark.parametrize("path", ["a", "notes/plan.md", "src/app/__init__.py", "é/ü.txt", "a b"])
def test_paths_kept_as_given(path: str) -> None:
    assert check_path(path) == path


@pytest.mark.parametrize(
    "path",
    [
        "",
        "/abs",
        "trailing/",
        "a//b",
        "./a",
        "a/../b",
        "..",
        "a\\b",
        "a\nb",
        "x" * 1025,
        "a/" + "y" * 256,
        None,
        5,
    ],
)
def test_bad_paths_are_refused_naming_the_field(path: object) -> None:
    with pytest.raises(ValidationFailed) as refused:
        check_path(path, field="path")
    assert refused.value.details["field"] == "path"
    assert "relative path" in refused.value.message


def test_prefixes_may_end_anywhere_but_not_hold_control_characters() -> None:
    assert check_prefix(None) == ""
    assert check_prefix("src/ma") == "src/ma"
    with pytest.raises(ValidationFailed):
        check_prefix("a\x00")


def test_cues_are_paths_deduplicated_in_order_and_bounded() -> None:
    assert check_cues(["b.md", "a.md", "b.md"]) == ["b.md", "a.md"]
    with pytest.raises(ValidationFailed):
        check_cues([f"f{n}" for n in range(MAX_CUES + 1)])
    with pytest.raises(ValidationFailed):
        check_cues(["../escape"])


def test_cues_need_their_workspace() -> None:
    with pytest.raises(ValidationFailed) as refused:
        check_workspace_cues(None, ["notes.md"])
    assert refused.value.details["field"] == "workspace_id"
    assert check_workspace_cues(None, []).workspace_id is None
    cues = check_workspace_cues(WORKSPACE.upper(), ["notes.md"])
    assert (cues.workspace_id, cues.paths) == (WORKSPACE, ["notes.md"])


def test_outputs_are_checked_ids() -> None:
    outputs = check_outputs([WORKSPACE, WORKSPACE], None)
    assert (outputs.file_ids, outputs.artifact_ids) == ([WORKSPACE], [])
    with pytest.raises(ValidationFailed) as refused:
        check_outputs(["nope"], [])
    assert refused.value.details["field"] == "workspace_file_ids"


def test_content_is_text_or_base64_exactly_one() -> None:
    assert rules.content_of("héllo", None) == "héllo".encode()
    assert rules.content_of(None, base64.b64encode(b"\x00\xff").decode()) == b"\x00\xff"
    assert rules.content_of("", None) == b""
    for text, encoded in ((None, None), ("a", "YQ==")):
        with pytest.raises(ValidationFailed):
            rules.content_of(text, encoded)
    with pytest.raises(ValidationFailed) as refused:
        rules.content_of(None, "not base64!")
    assert refused.value.details["field"] == "content_base64"


def test_media_types_given_guessed_or_by_how_content_came() -> None:
    assert rules.media_type_of("Text/Markdown", "a.md", text=True) == "text/markdown"
    assert rules.media_type_of(None, "data.json", text=True) == "application/json"
    assert rules.media_type_of(None, "README", text=True) == rules.TEXT_TYPE
    assert rules.media_type_of(None, "blob", text=False) == rules.BINARY_TYPE
    with pytest.raises(ValidationFailed) as refused:
        rules.media_type_of("not a type", "a", text=True)
    assert refused.value.details["field"] == "media_type"


def test_names_and_labels() -> None:
    assert rules.check_name("research-notes.v2") == "research-notes.v2"
    for bad in ("", "-x", "a b", "x" * 101, None):
        with pytest.raises(ValidationFailed):
            rules.check_name(bad)
    assert rules.check_label("  before refactor ") == "before refactor"
    with pytest.raises(ValidationFailed):
        rules.check_label("  ")


def test_cursors_round_trip_and_foreign_ones_are_refused() -> None:
    assert decode_cursor(encode_cursor("src/é.py")) == "src/é.py"
    assert decode_cursor(None) is None
    with pytest.raises(ValidationFailed):
        decode_cursor("%%%")


def test_equal_file_sets_give_equal_canonical_manifests() -> None:
    one = m.manifest_of([["b", "2"], ["a", "1"]])
    two = m.manifest_of([("a", "1"), ("b", "2")])
    assert one.data == two.data and one.sha256 == two.sha256
    assert one.sha256 == hashlib.sha256(one.data).hexdigest()
    assert json.loads(one.data) == {"format": m.FORMAT, "files": {"a": "1", "b": "2"}}
    assert m.decode(one.data) == {"a": "1", "b": "2"}
    assert m.manifest_of([["a", "1"]]).sha256 != one.sha256
    with pytest.raises(ValueError):
        m.decode(b'{"files": {}}')


def test_diff_by_hashes() -> None:
    before = {"keep": "k", "change": "c1", "gone": "g", "src/x": "x1"}
    after = {"keep": "k", "change": "c2", "new": "n", "src/x": "x2"}
    diff = m.diff(before, after)
    assert [(c.path, c.before, c.after) for c in diff.added] == [("new", None, "n")]
    assert [(c.path, c.before, c.after) for c in diff.removed] == [("gone", "g", None)]
    assert [c.path for c in diff.changed] == ["change", "src/x"]
    assert (diff.added_count, diff.removed_count, diff.changed_count) == (1, 1, 2)
    assert not diff.identical and not diff.truncated
    under = m.diff(before, after, prefix="src/")
    assert [c.path for c in under.changed] == ["src/x"] and under.added_count == 0
    cut = m.diff(before, after, first=1)
    assert cut.truncated and len(cut.changed) == 1 and cut.changed_count == 2
    assert m.diff(before, dict(before)).identical


def test_equal_manifest_hashes_need_no_manifest() -> None:
    same = m.same("h", "h")
    assert same is not None and same.identical and same.changed_count == 0
    assert m.same("h", "other") is None
