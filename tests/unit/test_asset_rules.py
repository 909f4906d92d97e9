"""Asset graph and publishing rules: status machines, the approval gate, field validation."""

from __future__ import annotations

from enum import StrEnum

import pytest

from app.api.assets.inputs import upload_bytes
from app.domain.assets.rules import (
    APPROVAL_TRANSITIONS,
    ASSET_TRANSITIONS,
    PACKAGE_TRANSITIONS,
    RUN_TRANSITIONS,
    VARIANT_TRANSITIONS,
    blocked_variants,
    check_publishable,
    check_transition,
)
from app.domain.kernel.errors import ApprovalRequired, InvalidTransition, ValidationFailed
from app.domain.kernel.field_rules import (
    check_checksum,
    check_dimensions,
    check_duration,
    check_ids,
    check_text,
    check_upload,
    decoded,
    json_text,
)
from app.model.enums import (
    ApprovalStatus,
    AssetStatus,
    PackageStatus,
    PublishRunStatus,
    VariantStatus,
)

MACHINES: list[tuple[dict, type[StrEnum], set[str]]] = [
    (ASSET_TRANSITIONS, AssetStatus, {"retired"}),
    (VARIANT_TRANSITIONS, VariantStatus, {"published"}),
    (APPROVAL_TRANSITIONS, ApprovalStatus, {"approved", "rejected"}),
    (PACKAGE_TRANSITIONS, PackageStatus, {"published"}),
    (RUN_TRANSITIONS, PublishRunStatus, {"succeeded", "failed"}),
]
ALLOWED = {
    "asset": [
        ("draft", "generated"), ("draft", "retired"), ("generated", "edited"),
        ("generated", "approved"), ("generated", "retired"), ("edited", "approved"),
        ("edited", "generated"), ("edited", "retired"), ("approved", "published"),
        ("approved", "edited"), ("approved", "retired"), ("published", "retired"),
    ],
    "variant": [
        ("pending", "ready"), ("pending", "failed"), ("ready", "approved"), ("ready", "failed"),
        ("failed", "pending"), ("approved", "published"), ("approved", "failed"),
    ],
    "package": [
        ("queued", "scheduled"), ("queued", "publishing"), ("queued", "failed"),
        ("scheduled", "publishing"), ("scheduled", "queued"), ("scheduled", "failed"),
        ("publishing", "published"), ("publishing", "failed"), ("failed", "queued"),
    ],
}  # fmt: skip


@pytest.mark.parametrize(("table", "enum", "finals"), MACHINES)
def test_every_status_has_a_rule_and_finals_are_final(
    table: dict, enum: type[StrEnum], finals: set[str]
) -> None:
    assert set(table) == set(enum)
    assert {status.value for status, nexts in table.items() if not nexts} == finals
    for final in finals:
        for target in enum:
            with pytest.raises(InvalidTransition):
                check_transition(table, enum(final), target, what="x")


@pytest.mark.parametrize(
    ("table", "enum", "name"),
    [
        (ASSET_TRANSITIONS, AssetStatus, "asset"),
        (VARIANT_TRANSITIONS, VariantStatus, "variant"),
        (PACKAGE_TRANSITIONS, PackageStatus, "package"),
    ],
)
def test_exactly_the_specified_transitions_are_allowed(
    table: dict, enum: type[StrEnum], name: str
) -> None:
    allowed = {(a.value, b.value) for a, nexts in table.items() for b in nexts}
    assert allowed == set(ALLOWED[name])
    for current in enum:
        for target in enum:
            if (current.value, target.value) in allowed:
                check_transition(table, current, target, what=name)
            else:
                with pytest.raises(InvalidTransition):
                    check_transition(table, current, target, what=name)


def test_transition_error_names_the_allowed_next_statuses() -> None:
    with pytest.raises(InvalidTransition, match="allowed next statuses: failed, ready") as caught:
        check_transition(
            VARIANT_TRANSITIONS, VariantStatus.PENDING, VariantStatus.PUBLISHED, what="a variant"
        )
    assert caught.value.details == {"current": "pending", "target": "published"}
    with pytest.raises(InvalidTransition, match="allowed next statuses: none"):
        check_transition(
            APPROVAL_TRANSITIONS, ApprovalStatus.APPROVED, ApprovalStatus.REJECTED, what="x"
        )


def test_approval_gate() -> None:
    assert blocked_variants({}) == []
    assert blocked_variants({"v1": [], "v2": ["approved", "approved"]}) == []
    statuses = {"v3": ["approved", "pending"], "v1": ["rejected"], "v2": ["approved"], "v4": []}
    assert blocked_variants(statuses) == ["v1", "v3"]
    with pytest.raises(ApprovalRequired) as caught:
        check_publishable(statuses)
    assert caught.value.code == "APPROVAL_REQUIRED"
    assert caught.value.details == {"variant_ids": ["v1", "v3"]}
    assert "v1, v3" in caught.value.message
    check_publishable({"v1": ["approved"], "v2": []})


def test_dimensions_are_an_object_of_positive_integers() -> None:
    assert check_dimensions({"width": 1080, "height": 1920}) == '{"height":1920,"width":1080}'
    assert check_dimensions(None) is None
    for bad in [[1080, 1920], "1080x1920", {}, {"w": 0}, {"w": -1}, {"w": 1.5}, {"w": True},
                {"w": "1080"}, {"w": 10**9}, {str(n): 1 for n in range(9)}]:  # fmt: skip
        with pytest.raises(ValidationFailed, match="dimensions"):
            check_dimensions(bad)


def test_duration_checksum_text_ids_and_uploads() -> None:
    assert check_duration(0) == 0.0 and check_duration(12.5) == 12.5
    for bad in [-0.1, float("nan"), True, "3", 86_401]:
        with pytest.raises(ValidationFailed, match="duration_seconds"):
            check_duration(bad)
    assert check_checksum("sha256:" + "a" * 64).startswith("sha256:")
    for bad in [None, "", "x" * 129, "has space", "../x"]:
        with pytest.raises(ValidationFailed, match="checksum"):
            check_checksum(bad)
    check_text({"title": "ok"}, "title", limit=5, required=True)
    with pytest.raises(ValidationFailed, match="1-5"):
        check_text({"title": "  "}, "title", limit=5, required=True)
    with pytest.raises(ValidationFailed, match="required"):
        check_text({}, "title", required=True)
    with pytest.raises(ValidationFailed, match="at most 3"):
        check_text({"notes": "long"}, "notes", limit=3)
    ids = ["123E4567-E89B-12D3-A456-426614174000", "123e4567-e89b-12d3-a456-426614174000"]
    assert check_ids(ids, field="variant_ids") == ["123e4567-e89b-12d3-a456-426614174000"]
    with pytest.raises(ValidationFailed, match="1-100"):
        check_ids([], field="variant_ids", minimum=1)
    with pytest.raises(ValidationFailed, match="UUID"):
        check_ids(["nope"], field="variant_ids")
    check_upload(b"x", "image/png", field="media")
    with pytest.raises(ValidationFailed, match="empty"):
        check_upload(b"", "image/png", field="media")
    with pytest.raises(ValidationFailed, match="media type"):
        check_upload(b"x", "not a type", field="media")


def test_json_fields_round_trip_as_text() -> None:
    text = json_text({"b": [1, 2], "a": {"c": None}}, field="params")
    assert text == '{"a":{"c":null},"b":[1,2]}'
    assert decoded({"params": text, "other": "x"}, ["params", "missing"]) == {
        "params": {"a": {"c": None}, "b": [1, 2]},
        "other": "x",
    }
    assert json_text([1], field="input_refs", kinds=(dict, list)) == "[1]"
    with pytest.raises(ValidationFailed, match="JSON object"):
        json_text([1], field="params")
    with pytest.raises(ValidationFailed, match="at most"):
        json_text({"x": "y" * 30_000}, field="params")


def test_base64_uploads_are_strict() -> None:
    assert upload_bytes(None) is None
    assert upload_bytes("aGVsbG8=") == b"hello"
    for bad in ["aGVsbG8", "not base64!", "aGVs bG8="]:
        with pytest.raises(ValidationFailed, match="base64"):
            upload_bytes(bad)
