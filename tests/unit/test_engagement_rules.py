"""Engagement event and performance metric rules: field validation, whole-request rejection with
per-index reasons, the checks against what the graph holds, rollup arguments."""

from __future__ import annotations

import json
import math
import uuid
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
import strawberry

from app.api.engagement.inputs import PerformanceMetricInput, metric_fields
from app.domain.engagement.metric_rules import (
    EARLIEST,
    LATEST,
    MAX_LISTED_PROBLEMS,
    check_against_graph,
    check_metrics,
    metric_row,
    reject,
    rollup_params,
)
from app.domain.engagement.repository import check_links, check_new_event
from app.domain.kernel.errors import NotFound, ValidationFailed
from app.model.enums import MetricType, Platform

START = datetime(2026, 2, 2, tzinfo=UTC)
ASSET, VARIANT, PLAN = (str(uuid.uuid4()) for _ in range(3))


def metric(**overrides: Any) -> dict[str, Any]:
    fields = {
        "metric_id": str(uuid.uuid4()),
        "platform": "ig",
        "metric_type": "impressions",
        "value": 120,
        "window_start": START,
        "window_end": START + timedelta(days=1),
        "asset_id": ASSET,
        "variant_id": None,
        "plan_id": None,
    }
    return fields | overrides


def event(**overrides: Any) -> dict[str, Any]:
    fields = {"platform": "ig", "event_kind": "dm_sent", "actor": "ai", "result": "success"}
    return fields | overrides


def field_of(error: pytest.ExceptionInfo[ValidationFailed]) -> Any:
    return error.value.details.get("field")


def test_a_valid_metric_in_its_stored_shape() -> None:
    row = metric_row(metric(value=3, metric_id=ASSET.upper(), window_start=START))
    assert row["id"] == ASSET and row["value"] == 3.0 and isinstance(row["value"], float)
    assert row["platform"] == "ig" and row["metric_type"] == "impressions"
    assert row["window_start"] == START and row["window_start"].tzinfo is not None


def test_windows_are_stored_in_utc() -> None:
    plus_two = timezone(timedelta(hours=2))
    row = metric_row(metric(window_start=datetime(2026, 2, 2, 1, tzinfo=plus_two)))
    assert row["window_start"] == datetime(2026, 2, 1, 23, tzinfo=UTC)
    assert row["window_start"].utcoffset() == timedelta(0)


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"metric_id": "not-a-uuid"}, "metric_id"),
        ({"metric_id": None}, "metric_id"),
        ({"platform": "myspace"}, "platform"),
        ({"metric_type": "views"}, "metric_type"),
        ({"value": -1}, "value"),
        ({"value": math.nan}, "value"),
        ({"value": math.inf}, "value"),
        ({"value": True}, "value"),
        ({"value": "12"}, "value"),
        ({"window_start": datetime(2026, 2, 2)}, "window_start"),
        ({"window_end": "2026-02-03"}, "window_end"),
        ({"window_end": START}, "window_end"),
        ({"window_end": START - timedelta(seconds=1)}, "window_end"),
        ({"asset_id": None}, "ids"),
        ({"plan_id": "42"}, "plan_id"),
    ],
)
def test_invalid_metric_fields_are_named(overrides: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationFailed) as error:
        metric_row(metric(**overrides))
    assert field_of(error) == field


def test_zero_is_a_value_and_any_one_link_is_enough() -> None:
    assert metric_row(metric(value=0))["value"] == 0.0
    row = metric_row(metric(asset_id=None, plan_id=PLAN))
    assert row["plan_id"] == PLAN and row["asset_id"] is None


def test_every_invalid_metric_is_listed_by_index_and_the_request_refused_whole() -> None:
    repeated = str(uuid.uuid4())
    metrics = [
        metric(),
        metric(value=-5),
        metric(metric_id=repeated),
        metric(metric_id=repeated),
        metric(asset_id=None),
        metric(),
    ]
    checked = check_metrics(metrics, limit=10)
    assert [row["index"] for row in checked.rows] == [0, 2, 5]
    assert [(p["index"], p["field"]) for p in checked.problems] == [
        (1, "value"),
        (3, "metric_id"),
        (4, "ids"),
    ]
    assert "index 2" in checked.problems[1]["message"]
    with pytest.raises(ValidationFailed) as error:
        reject(checked, received=len(metrics))
    assert error.value.message == "3 of 6 metrics are invalid; nothing was written"
    assert error.value.details["invalidCount"] == 3
    assert [p["index"] for p in error.value.details["invalid"]] == [1, 3, 4]


def test_a_request_without_problems_passes_and_the_size_is_bounded() -> None:
    reject(check_metrics([metric(), metric()], limit=2), received=2)
    with pytest.raises(ValidationFailed):
        check_metrics([metric(), metric(), metric()], limit=2)
    with pytest.raises(ValidationFailed):
        check_metrics([], limit=2)


def test_listed_problems_are_capped_but_counted() -> None:
    metrics = [metric(value=-1) for _ in range(MAX_LISTED_PROBLEMS + 20)]
    with pytest.raises(ValidationFailed) as error:
        reject(check_metrics(metrics, limit=1_000), received=len(metrics))
    assert len(error.value.details["invalid"]) == MAX_LISTED_PROBLEMS
    assert error.value.details["invalidCount"] == MAX_LISTED_PROBLEMS + 20


def found(**overrides: Any) -> dict[str, Any]:
    graph = {"assets": [ASSET], "plans": [PLAN], "variants": [[VARIANT, ASSET]], "metrics": []}
    return graph | overrides


def test_ids_the_client_does_not_own_are_problems_of_their_index() -> None:
    other = str(uuid.uuid4())
    metrics = [
        metric(),
        metric(asset_id=other),
        metric(asset_id=None, variant_id=other),
        metric(asset_id=None, plan_id=other),
        metric(asset_id=None, variant_id=VARIANT, plan_id=PLAN),
    ]
    checked = check_metrics(metrics, limit=10)
    check_against_graph(checked, found())
    assert [(p["index"], p["field"]) for p in checked.problems] == [
        (1, "asset_id"),
        (2, "variant_id"),
        (3, "plan_id"),
    ]
    assert checked.problems[0]["message"] == f"no asset with id {other}"


def test_a_variant_must_belong_to_the_asset_given_with_it() -> None:
    other_asset = str(uuid.uuid4())
    checked = check_metrics([metric(variant_id=VARIANT), metric(variant_id=VARIANT)], limit=5)
    variants = [[VARIANT, other_asset]]
    check_against_graph(checked, found(assets=[ASSET], variants=variants))
    assert [p["field"] for p in checked.problems] == ["variant_id", "variant_id"]


def test_a_stored_metric_keeps_its_fixed_fields() -> None:
    mine, new = str(uuid.uuid4()), str(uuid.uuid4())
    stored = {"id": mine, "platform": "ig", "metric_type": "impressions"}
    stored |= {"asset_id": ASSET, "variant_id": None, "plan_id": None}
    metrics = [
        metric(metric_id=mine, value=999, window_end=START + timedelta(days=7)),
        metric(metric_id=new),
    ]
    checked = check_metrics(metrics, limit=5)
    check_against_graph(checked, found(metrics=[stored]))
    assert checked.problems == []

    changed = check_metrics([metric(metric_id=mine, metric_type="reach")], limit=5)
    check_against_graph(changed, found(metrics=[stored]))
    assert "only its value and window" in changed.problems[0]["message"]


def test_rollup_arguments() -> None:
    params = rollup_params(metric_types=None, start=None, end=None, bucket="none", first=100)
    assert params == {
        "from": EARLIEST,
        "to": LATEST,
        "metric_types": None,
        "bucket": None,
        "first": 100,
    }
    week = rollup_params(
        metric_types=["reach", "likes", "reach"], start=START, end=None, bucket="week", first=5
    )
    assert week["metric_types"] == ["likes", "reach"] and week["bucket"] == "week"
    for bad in (
        {"first": 0},
        {"first": 1001},
        {"bucket": "month"},
        {"metric_types": ["views"]},
        {"start": START, "end": START},
        {"start": datetime(2026, 2, 2)},
    ):
        arguments: dict[str, Any] = {
            "metric_types": None,
            "start": None,
            "end": None,
            "bucket": "day",
            "first": 10,
        }
        with pytest.raises(ValidationFailed):
            rollup_params(**(arguments | bad))


def test_a_new_event_in_its_stored_shape() -> None:
    stored = check_new_event(
        event(payload={"b": 1, "a": [1, 2]}, variant_id=VARIANT.upper(), external_ref="ig:dm:9")
    )
    assert stored["event_kind"] == "dm_sent" and stored["actor"] == "ai"
    assert json.loads(stored["payload"]) == {"a": [1, 2], "b": 1}
    assert stored["variant_id"] == VARIANT and stored["linked_asset_id"] is None
    assert stored["external_ref"] == "ig:dm:9" and stored["failure_reason"] is None


def test_a_failure_needs_a_reason_and_only_failures_have_one() -> None:
    for missing_reason in (None, "", "   "):
        with pytest.raises(ValidationFailed) as error:
            check_new_event(event(result="fail", failure_reason=missing_reason))
        assert field_of(error) == "failure_reason"
    assert check_new_event(event(result="fail", failure_reason=" rate_limited "))[
        "failure_reason"
    ] == ("rate_limited")
    assert check_new_event(event(result="partial"))["failure_reason"] is None
    assert check_new_event(event(result="partial", failure_reason="timeout"))["result"] == "partial"
    with pytest.raises(ValidationFailed):
        check_new_event(event(result="success", failure_reason="timeout"))


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"platform": "instagram"}, "platform"),
        ({"event_kind": "retweet"}, "event_kind"),
        ({"actor": "robot"}, "actor"),
        ({"result": "ok"}, "result"),
        ({"payload": [1, 2]}, "payload"),
        ({"external_ref": "x" * 501}, "external_ref"),
        ({"failure_reason": "x" * 201, "result": "fail"}, "failure_reason"),
        ({"thread_id": "thread-1"}, "thread_id"),
        ({"publish_run_id": "run-1"}, "publish_run_id"),
    ],
)
def test_invalid_event_fields_are_named(overrides: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationFailed) as error:
        check_new_event(event(**overrides))
    assert field_of(error) == field


def test_links_not_owned_are_not_found_and_a_variant_must_be_of_the_asset() -> None:
    stored = check_new_event(event(linked_asset_id=ASSET, variant_id=VARIANT))
    owned = {"asset_id": True, "variant_id": [ASSET], "run_id": False, "thread_id": False}
    check_links(stored, owned)
    with pytest.raises(NotFound):
        check_links(stored, owned | {"asset_id": False})
    with pytest.raises(NotFound):
        check_links(stored, owned | {"variant_id": []})
    with pytest.raises(ValidationFailed):
        check_links(stored, owned | {"variant_id": [str(uuid.uuid4())]})
    run = check_new_event(event(publish_run_id=PLAN))
    with pytest.raises(NotFound):
        check_links(run, owned)


def test_metric_inputs_are_built_from_the_coerced_graphql_values() -> None:
    received: list[dict[str, Any]] = []

    @strawberry.type
    class Query:
        ok: bool = True

    @strawberry.type
    class Mutation:
        @strawberry.mutation
        def ingest(self, metrics: list[PerformanceMetricInput]) -> int:
            received.extend(metric_fields(metric) for metric in metrics)
            return len(metrics)

    document = "mutation($m: [PerformanceMetricInput!]!) { ingest(metrics: $m) }"
    given = {
        "metricId": ASSET,
        "platform": "TIKTOK",
        "metricType": "DM_STARTS",
        "value": 3,
        "windowStart": "2026-02-02T00:00:00+02:00",
        "windowEnd": "2026-02-03T00:00:00Z",
        "planId": PLAN,
    }
    result = strawberry.Schema(query=Query, mutation=Mutation).execute_sync(
        document, variable_values={"m": [given, given | {"variantId": VARIANT, "planId": None}]}
    )
    assert result.errors is None and result.data == {"ingest": 2}
    assert received[0] == {
        "metric_id": ASSET,
        "platform": Platform.TIKTOK,
        "metric_type": MetricType.DM_STARTS,
        "value": 3.0,
        "window_start": datetime(2026, 2, 1, 22, tzinfo=UTC),
        "window_end": datetime(2026, 2, 3, tzinfo=UTC),
        "asset_id": None,
        "variant_id": None,
        "plan_id": PLAN,
    }
    assert received[1]["variant_id"] == VARIANT and received[1]["plan_id"] is None
    assert metric_row(received[0])["platform"] == "tiktok"
