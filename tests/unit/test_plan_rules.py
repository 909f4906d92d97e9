from datetime import UTC, datetime

import pytest

from app.domain.kernel.errors import InvalidTransition, ValidationFailed
from app.domain.kernel.pagination import decode_cursor, encode_cursor, keyset_params
from app.domain.plans.rules import PLAN_TRANSITIONS, check_plan_fields, check_transition
from app.model.enums import PlanStatus


def test_every_status_has_a_rule_and_archived_is_final() -> None:
    assert set(PLAN_TRANSITIONS) == set(PlanStatus)
    assert PLAN_TRANSITIONS[PlanStatus.ARCHIVED] == frozenset()
    for status in PlanStatus:
        with pytest.raises(InvalidTransition):
            check_transition(PlanStatus.ARCHIVED, status)


def test_forward_path_is_allowed_and_skips_are_not() -> None:
    path = ["draft", "reviewed", "approved", "executing", "complete", "archived"]
    for current, target in zip(path, path[1:], strict=False):
        check_transition(PlanStatus(current), PlanStatus(target))
    with pytest.raises(InvalidTransition, match="allowed next statuses: archived, reviewed"):
        check_transition(PlanStatus.DRAFT, PlanStatus.APPROVED)


def test_field_validation() -> None:
    start = datetime(2026, 2, 1, tzinfo=UTC)
    check_plan_fields({"name": "ok", "time_window_start": start, "time_window_end": start})
    with pytest.raises(ValidationFailed, match="time_window_end"):
        check_plan_fields(
            {"time_window_start": start, "time_window_end": start.replace(day=1, month=1)}
        )
    with pytest.raises(ValidationFailed, match="time zone"):
        check_plan_fields({"time_window_start": datetime(2026, 2, 1)})
    with pytest.raises(ValidationFailed, match="name"):
        check_plan_fields({"name": ""})


def test_cursor_round_trip_and_garbage() -> None:
    moment = datetime(2026, 3, 4, 5, 6, 7, 890000, tzinfo=UTC)
    assert decode_cursor(encode_cursor(moment, "abc")) == (moment, "abc")
    assert keyset_params(None) == {"after_created_at": None, "after_id": None}
    with pytest.raises(ValidationFailed, match="cursor"):
        decode_cursor("!!not-base64!!")
