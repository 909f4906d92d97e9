"""Performance metric rules (seed 000, 6.3): per-metric validation of a bulk ingest, the checks
against what the graph holds, and the arguments of a rollup. Pure functions, no I/O."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from app.domain.kernel.errors import AppError, ValidationFailed
from app.domain.kernel.ids import check_id
from app.model.enums import MetricType, Platform

LINKS = ("asset_id", "variant_id", "plan_id")
FIXED = ("platform", "metric_type", *LINKS)
MAX_LISTED_PROBLEMS = 100
MAX_ROLLUP_ROWS = 1_000
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 12, 31, tzinfo=UTC)


class RollupGroupBy(StrEnum):
    ASSET = "asset"
    VARIANT = "variant"
    PLAN = "plan"
    PLATFORM = "platform"


class RollupBucket(StrEnum):
    NONE = "none"
    DAY = "day"
    WEEK = "week"


@dataclass
class Checked:
    """The rows to write (stored shape) and the problems found, each naming its index."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)

    def add(self, index: int, name: str, message: str) -> None:
        self.problems.append({"index": index, "field": name, "message": message})


def check_metrics(metrics: list[dict[str, Any]], *, limit: int) -> Checked:
    """Every metric checked on its own; a metric id repeated within the request is a problem."""
    if not 1 <= len(metrics) <= limit:
        raise ValidationFailed(f"metrics must list 1-{limit} metrics", field="metrics")
    checked, first_index = Checked(), dict[str, int]()
    for index, raw in enumerate(metrics):
        try:
            row = metric_row(raw)
        except AppError as error:
            checked.add(index, str(error.details.get("field", "")), error.message)
            continue
        seen = first_index.setdefault(row["id"], index)
        if seen != index:
            checked.add(index, "metric_id", f"metric_id repeats the metric at index {seen}")
            continue
        checked.rows.append(row | {"index": index})
    return checked


def metric_row(raw: dict[str, Any]) -> dict[str, Any]:
    """One metric in its stored shape; raises ValidationFailed naming the first bad field."""
    row: dict[str, Any] = {"id": check_id(str(raw.get("metric_id") or ""), field="metric_id")}
    row["platform"] = _member(Platform, raw.get("platform"), "platform")
    row["metric_type"] = _member(MetricType, raw.get("metric_type"), "metric_type")
    value = raw.get("value")
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValidationFailed("value must be a finite number", field="value")
    if value < 0:
        raise ValidationFailed("value must be >= 0", field="value")
    row["value"] = float(value)
    row["window_start"] = utc(raw.get("window_start"), name="window_start")
    row["window_end"] = utc(raw.get("window_end"), name="window_end")
    if row["window_end"] <= row["window_start"]:
        raise ValidationFailed("window_end must be after window_start", field="window_end")
    for name in LINKS:
        given = raw.get(name)
        row[name] = None if given is None else check_id(str(given), field=name)
    if all(row[name] is None for name in LINKS):
        raise ValidationFailed("give at least one of asset_id, variant_id, plan_id", field="ids")
    return row


def check_against_graph(checked: Checked, found: dict[str, Any]) -> None:
    """Problems of rows naming records the client does not own, or that would change one of
    its stored metrics' fixed fields. `found` is what METRIC_LOOKUP returned."""
    assets, plans = set(found["assets"]), set(found["plans"])
    variants = {pair[0]: pair[1] for pair in found["variants"]}
    existing = {metric["id"]: metric for metric in found["metrics"]}
    for row in checked.rows:
        index = row["index"]
        for name, known, what in (("asset_id", assets, "asset"), ("plan_id", plans, "plan")):
            if row[name] is not None and row[name] not in known:
                checked.add(index, name, f"no {what} with id {row[name]}")
        variant = row["variant_id"]
        if variant is not None and variant not in variants:
            checked.add(index, "variant_id", f"no variant with id {variant}")
        elif variant is not None and row["asset_id"] not in (None, variants[variant]):
            checked.add(index, "variant_id", f"variant {variant} is not a variant of the asset")
        stored = existing.get(row["id"])
        if stored is None:
            continue
        if any(stored.get(name) != row[name] for name in FIXED):
            checked.add(
                index,
                "metric_id",
                f"metric {row['id']} exists with other platform, metric_type or ids; "
                "re-ingesting a metric changes only its value and window",
            )


def reject(checked: Checked, *, received: int) -> None:
    """The whole request is refused when any metric is invalid: nothing is written."""
    if not checked.problems:
        return
    problems = sorted(checked.problems, key=lambda problem: problem["index"])
    bad = len({problem["index"] for problem in problems})
    raise ValidationFailed(
        f"{bad} of {received} metrics are invalid; nothing was written",
        invalid=problems[:MAX_LISTED_PROBLEMS],
        invalidCount=bad,
    )


def rollup_params(
    *,
    metric_types: list[Any] | None,
    start: datetime | None,
    end: datetime | None,
    bucket: Any,
    first: int,
) -> dict[str, Any]:
    """Query parameters of a rollup; an open end of the window becomes a far-away bound."""
    if not 1 <= first <= MAX_ROLLUP_ROWS:
        raise ValidationFailed(f"first must be 1-{MAX_ROLLUP_ROWS}", field="first")
    lower = EARLIEST if start is None else utc(start, name="from")
    upper = LATEST if end is None else utc(end, name="to")
    if upper <= lower:
        raise ValidationFailed("to must be after from", field="to")
    types = None
    if metric_types is not None:
        types = sorted({_member(MetricType, value, "metric_types") for value in metric_types})
    chosen = _member(RollupBucket, bucket, "bucket")
    return {
        "from": lower,
        "to": upper,
        "metric_types": types,
        "bucket": None if chosen == RollupBucket.NONE else chosen,
        "first": first,
    }


def utc(value: Any, *, name: str) -> datetime:
    if not isinstance(value, datetime):
        raise ValidationFailed(f"{name} must be a date-time", field=name)
    if value.tzinfo is None:
        raise ValidationFailed(f"{name} needs a time zone (e.g. 2026-02-01T00:00:00Z)", field=name)
    return value.astimezone(UTC)


def _member(enum: type[StrEnum], value: Any, name: str) -> str:
    try:
        return str(enum(value).value)
    except ValueError:
        allowed = ", ".join(member.value for member in enum)
        raise ValidationFailed(f"{name} must be one of: {allowed}", field=name) from None
