"""Engagement events, bulk metric ingest and rollups over real HTTP and Neo4j: links checked per
client, failures with reasons, idempotency, whole-request rejection, rollups against numbers
computed here, and isolation of every new query and mutation."""

from __future__ import annotations

import json
import random
import uuid
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.graph.values import plain
from app.model.enums import Role
from app.settings import Settings
from tests.integration.asset_helpers import (
    MISSING_ID,
    count,
    create_asset,
    create_plan,
    create_plan_node,
    create_variant,
    error_code,
    same_client_caller,
)
from tests.integration.conftest import Caller

EVENT = "id platform eventKind externalRef actor linkedAssetId variantId publishRunId threadId "
EVENT += "payload result failureReason"
RECORD = (
    "mutation($input: RecordEngagementEventInput!) { recordEngagementEvent(input: $input) "
    f"{{ deduplicated event {{ {EVENT} asset {{ id }} variant {{ id }} publishRun {{ id }} "
    "thread { id } } } }"
)
INGEST = (
    "mutation($metrics: [PerformanceMetricInput!]!) { ingestPerformanceMetrics(metrics: $metrics)"
    " { received created updated batches } }"
)
ROLLUP = """query($groupBy: RollupGroupBy!, $types: [MetricType!], $from: DateTime,
  $to: DateTime, $bucket: RollupBucket! = NONE, $first: Int! = 1000) {
  metricRollup(groupBy: $groupBy, metricTypes: $types, from: $from, to: $to, bucket: $bucket,
               first: $first) { key label bucketStart metricType sum avg max count } }"""
RUN = """
CREATE (r:PublishRun {id: $id, client_id: $client_id, package_id: $id, platform: 'ig',
  status: 'running', created_at: datetime(), updated_at: datetime()}) RETURN r.id AS id
"""
THREAD = """
CREATE (t:ConversationThread {id: $id, client_id: $client_id, platform: 'instagram',
  thread_type: 'dm', external_thread_ref: $id, status: 'open', handoff_state: 'none',
  event_count: 0, events_since_summary: 0, summary_version: 0, needs_summary: false,
  created_at: datetime(), updated_at: datetime()}) RETURN t.id AS id
"""
CLIENT_COUNT = "MATCH (n:{label} {{client_id: $client_id}}) RETURN count(n)"
DAY0 = datetime(2026, 2, 2, tzinfo=UTC)  # a Monday
TYPES = ["IMPRESSIONS", "LIKES", "CLICKS"]


def seeded(session: Any, query: str, caller: Caller) -> str:
    params = {"id": str(uuid.uuid4()), "client_id": caller.client_id}
    return str(session.run(query, **params).single()["id"])


def client_count(session: Any, label: str, caller: Caller) -> int:
    return count(session, CLIENT_COUNT.format(label=label), client_id=caller.client_id)


def record(caller: Caller, **fields: Any) -> Any:
    base = {"platform": "IG", "eventKind": "DM_SENT", "actor": "AI", "result": "SUCCESS"}
    return caller.gql(RECORD, {"input": base | fields})


def metric(link: dict[str, str], **overrides: Any) -> dict[str, Any]:
    start = overrides.pop("start", DAY0)
    fields = {
        "metricId": str(uuid.uuid4()),
        "platform": "IG",
        "metricType": "IMPRESSIONS",
        "value": 10.0,
        "windowStart": start.isoformat(),
        "windowEnd": (start + timedelta(hours=1)).isoformat(),
    }
    return fields | link | overrides


def ingest(caller: Caller, metrics: list[dict[str, Any]], **headers: str) -> Any:
    return caller.gql(INGEST, {"metrics": metrics}, **headers)


def rollup(caller: Caller, **variables: Any) -> list[dict[str, Any]]:
    return list(caller.data(ROLLUP, variables)["metricRollup"])


@pytest.fixture
def world(alice: Caller, neo4j_session: Any) -> dict[str, str]:
    """Plan P with a blueprint node, asset A made from it with variants V1 and V2, asset B
    without a blueprint, plan Q without assets, a publish run and a thread."""
    plan_p, plan_q = create_plan(alice), create_plan(alice)
    node = create_plan_node(neo4j_session, alice, plan_p)
    asset_a = create_asset(alice, sourceBlueprintInstanceId=node)["id"]
    asset_b = create_asset(alice, title="Standalone carousel")["id"]
    v1 = create_variant(alice, asset_a, checksum=f"sha:{uuid.uuid4().hex}")["id"]
    v2 = create_variant(alice, asset_a, checksum=f"sha:{uuid.uuid4().hex}", platform="TIKTOK")
    return {
        "P": plan_p,
        "Q": plan_q,
        "A": asset_a,
        "B": asset_b,
        "V1": v1,
        "V2": v2["id"],
        "run": seeded(neo4j_session, RUN, alice),
        "thread": seeded(neo4j_session, THREAD, alice),
    }


def test_an_event_links_each_record_it_concerns(
    alice: Caller, world: dict[str, str], neo4j_session: Any
) -> None:
    links = {
        "linkedAssetId": world["A"],
        "variantId": world["V1"],
        "publishRunId": world["run"],
        "threadId": world["thread"],
    }
    body = record(
        alice,
        eventKind="POST_PUBLISHED",
        actor="PLATFORM",
        externalRef="ig:media:1",
        payload={"permalink": "https://ig/p/1", "retries": 0},
        **links,
    )
    payload = body["data"]["recordEngagementEvent"]
    event = payload["event"]
    assert payload["deduplicated"] is False
    assert event["eventKind"] == "POST_PUBLISHED" and event["actor"] == "PLATFORM"
    assert event["payload"] == {"permalink": "https://ig/p/1", "retries": 0}
    assert {name: event[name] for name in links} == links
    assert event["asset"] == {"id": world["A"]} and event["variant"] == {"id": world["V1"]}
    assert event["publishRun"] == {"id": world["run"]}
    assert event["thread"] == {"id": world["thread"]}
    related = "MATCH (:EngagementEvent {id: $id})-[:CONCERNS]->(n) RETURN count(n)"
    assert count(neo4j_session, related, id=event["id"]) == 4

    bare = record(alice, eventKind="LIKE")["data"]["recordEngagementEvent"]["event"]
    assert bare["asset"] is None and bare["externalRef"] is None
    assert count(neo4j_session, related, id=bare["id"]) == 0


def test_a_failure_needs_a_reason(alice: Caller, neo4j_session: Any) -> None:
    assert error_code(record(alice, result="FAIL")) == "VALIDATION"
    assert error_code(record(alice, result="FAIL", failureReason="  ")) == "VALIDATION"
    assert error_code(record(alice, result="SUCCESS", failureReason="spam")) == "VALIDATION"
    assert client_count(neo4j_session, "EngagementEvent", alice) == 0
    event = record(alice, result="FAIL", failureReason="rate_limited", eventKind="DM_SENT")
    assert event["data"]["recordEngagementEvent"]["event"]["failureReason"] == "rate_limited"
    partial = record(alice, result="PARTIAL")["data"]["recordEngagementEvent"]["event"]
    assert partial["result"] == "PARTIAL" and partial["failureReason"] is None


def test_an_external_ref_is_recorded_once_per_client(
    alice: Caller, bob: Caller, world: dict[str, str], neo4j_session: Any
) -> None:
    first = record(alice, externalRef="ig:dm:77", linkedAssetId=world["A"])
    again = record(alice, externalRef="ig:dm:77", eventKind="LIKE", payload={"x": 1})
    one, two = (b["data"]["recordEngagementEvent"] for b in (first, again))
    assert two["deduplicated"] is True and two["event"]["id"] == one["event"]["id"]
    assert two["event"]["eventKind"] == "DM_SENT" and two["event"]["asset"] == {"id": world["A"]}
    assert client_count(neo4j_session, "EngagementEvent", alice) == 1
    bobs = record(bob, externalRef="ig:dm:77")["data"]["recordEngagementEvent"]
    assert bobs["deduplicated"] is False and bobs["event"]["id"] != one["event"]["id"]


def test_bob_cannot_link_an_event_to_alices_records(
    alice: Caller, bob: Caller, world: dict[str, str], neo4j_session: Any
) -> None:
    targets = {
        "linkedAssetId": world["A"],
        "variantId": world["V1"],
        "publishRunId": world["run"],
        "threadId": world["thread"],
    }
    for field, alices in targets.items():
        theirs, missing = record(bob, **{field: alices}), record(bob, **{field: MISSING_ID})
        assert error_code(theirs) == error_code(missing) == "NOT_FOUND"
        hide = theirs["errors"][0]["message"].replace(alices, MISSING_ID)
        assert hide == missing["errors"][0]["message"]
    assert client_count(neo4j_session, "EngagementEvent", bob) == 0
    inbound = "MATCH (n {id: $id})<-[:CONCERNS]-() RETURN count(*)"
    assert all(count(neo4j_session, inbound, id=v) == 0 for v in targets.values())


def test_bulk_ingest_in_one_request_then_idempotent_reingest(
    settings: Settings, alice: Caller, world: dict[str, str], neo4j_session: Any
) -> None:
    links = [{"assetId": world["A"]}, {"variantId": world["V1"], "assetId": world["A"]}]
    links += [{"planId": world["P"]}, {"variantId": world["V2"], "planId": world["Q"]}]
    metrics = [
        metric(links[n % 4], value=float(n), start=DAY0 + timedelta(hours=n)) for n in range(2500)
    ]
    assert len(json.dumps({"metrics": metrics})) < settings.max_body_bytes
    body = ingest(alice, metrics, **{"X-Agentmem-Roundtrips": "1"})
    assert body["data"]["ingestPerformanceMetrics"] == {
        "received": 2500,
        "created": 2500,
        "updated": 0,
        "batches": 3,
    }
    # One lookup, three batches, each batch's change feed entries in its transaction.
    assert body["extensions"]["cypherRoundTrips"] == 7
    assert client_count(neo4j_session, "PerformanceMetric", alice) == 2500
    measures = "MATCH (:PerformanceMetric {client_id: $client_id})-[r:MEASURES]->() RETURN count(r)"
    assert count(neo4j_session, measures, client_id=alice.client_id) == 625 * 6

    changed = [m | {"value": m["value"] + 0.5} for m in metrics[:1500]]
    changed[0]["windowEnd"] = (DAY0 + timedelta(days=7)).isoformat()
    fresh = [metric(links[0], value=1.0) for _ in range(10)]
    again = ingest(alice, changed + fresh)["data"]["ingestPerformanceMetrics"]
    assert again == {"received": 1510, "created": 10, "updated": 1500, "batches": 2}
    assert client_count(neo4j_session, "PerformanceMetric", alice) == 2510
    assert count(neo4j_session, measures, client_id=alice.client_id) == 625 * 6 + 10
    stored = neo4j_session.run(
        "MATCH (m:PerformanceMetric {id: $id}) RETURN m.value AS value, m.window_end AS end_",
        id=metrics[0]["metricId"],
    ).single()
    assert stored["value"] == 0.5 and plain(stored["end_"]) == DAY0 + timedelta(days=7)
    untouched = alice.data(
        "query($id: ID!) { performanceMetric(id: $id) { value } }",
        {"id": metrics[2000]["metricId"]},
    )
    assert untouched["performanceMetric"]["value"] == 2000.0


def test_any_invalid_metric_refuses_the_whole_request(
    alice: Caller, world: dict[str, str], neo4j_session: Any
) -> None:
    metrics = [metric({"assetId": world["A"]}) for _ in range(1200)]
    metrics[5]["value"] = -1.0
    metrics[700]["windowEnd"] = metrics[700]["windowStart"]
    metrics[1100] = metric({"variantId": world["V1"], "assetId": world["B"]})
    metrics[1150] = metric({"planId": MISSING_ID})
    body = ingest(alice, metrics)
    assert error_code(body) == "VALIDATION"
    assert body["errors"][0]["message"] == "2 of 1200 metrics are invalid; nothing was written"
    invalid = body["errors"][0]["extensions"]["invalid"]
    assert [(p["index"], p["field"]) for p in invalid] == [(5, "value"), (700, "window_end")]
    # Only once every metric is well-formed are the ids checked against the graph.
    metrics[5]["value"], metrics[700] = 1.0, metric({"assetId": world["A"]})
    body = ingest(alice, metrics)
    invalid = body["errors"][0]["extensions"]["invalid"]
    assert [(p["index"], p["field"]) for p in invalid] == [(1100, "variant_id"), (1150, "plan_id")]
    assert client_count(neo4j_session, "PerformanceMetric", alice) == 0


def attributed(world: dict[str, str], m: dict[str, Any], group: str) -> set[str]:
    """The keys the test expects a metric to count for (the documented attribution)."""
    variant_asset = {world["V1"]: world["A"], world["V2"]: world["A"]}
    asset_plan = {world["A"]: world["P"]}
    assets = {m.get("assetId"), variant_asset.get(m.get("variantId", ""))} - {None}
    if group == "ASSET":
        return {str(a) for a in assets}
    if group == "VARIANT":
        return {m["variantId"]} if m.get("variantId") else set()
    if group == "PLAN":
        plans = {m.get("planId"), *(asset_plan.get(str(a)) for a in assets)} - {None}
        return {str(p) for p in plans}
    return {m["platform"].lower()}


def expected_rows(
    world: dict[str, str], metrics: list[dict[str, Any]], group: str, bucket: str
) -> dict[tuple[str, str | None, str], tuple[float, float, float, int]]:
    values: dict[tuple[str, str | None, str], list[float]] = defaultdict(list)
    for m in metrics:
        start = datetime.fromisoformat(m["windowStart"])
        day = start.replace(hour=0, minute=0, second=0, microsecond=0)
        at = {"NONE": None, "DAY": day, "WEEK": day - timedelta(days=day.weekday())}[bucket]
        for key in attributed(world, m, group):
            values[(key, at and at.isoformat(), m["metricType"])].append(m["value"])
    return {k: (sum(v), sum(v) / len(v), max(v), len(v)) for k, v in values.items()}


def actual_rows(
    rows: list[dict[str, Any]],
) -> dict[tuple[str, str | None, str], tuple[float, float, float, int]]:
    found = {}
    for row in rows:
        at = row["bucketStart"] and datetime.fromisoformat(row["bucketStart"]).isoformat()
        found[(row["key"], at, row["metricType"])] = (
            row["sum"],
            row["avg"],
            row["max"],
            row["count"],
        )
    assert len(found) == len(rows)
    return found


def same_rows(got: dict[Any, Any], want: dict[Any, Any]) -> None:
    assert got.keys() == want.keys()
    for key, (total, mean, peak, n) in want.items():
        assert got[key] == (pytest.approx(total), pytest.approx(mean), peak, n), key


def test_rollups_match_numbers_computed_here(
    alice: Caller, bob: Caller, world: dict[str, str]
) -> None:
    rng = random.Random(7)
    links = [
        {"assetId": world["A"]},
        {"variantId": world["V1"]},
        {"variantId": world["V2"]},
        {"assetId": world["A"], "variantId": world["V1"]},
        {"assetId": world["B"]},
        {"planId": world["P"]},
        {"planId": world["Q"]},
        {"planId": world["P"], "assetId": world["A"]},
        {"planId": world["Q"], "variantId": world["V2"]},
    ]
    metrics = [
        metric(
            rng.choice(links),
            platform=rng.choice(["IG", "TIKTOK", "FB"]),
            metricType=rng.choice(TYPES),
            value=float(rng.randint(0, 500)),
            start=DAY0 + timedelta(hours=rng.randint(0, 24 * 20)),
        )
        for _ in range(600)
    ]
    edge = DAY0 + timedelta(days=3)
    metrics += [metric(links[0], start=edge), metric(links[0], start=edge + timedelta(days=7))]
    assert ingest(alice, metrics)["data"]["ingestPerformanceMetrics"]["created"] == 602
    for group in ("ASSET", "VARIANT", "PLAN", "PLATFORM"):
        for bucket in ("NONE", "DAY", "WEEK"):
            rows = rollup(alice, groupBy=group, bucket=bucket)
            same_rows(actual_rows(rows), expected_rows(world, metrics, group, bucket))
        assert rollup(bob, groupBy=group) == []

    window = {"from": edge.isoformat(), "to": (edge + timedelta(days=7)).isoformat()}
    rows = rollup(alice, groupBy="PLAN", bucket="WEEK", types=["LIKES", "IMPRESSIONS"], **window)
    inside = [
        m
        for m in metrics
        if edge <= datetime.fromisoformat(m["windowStart"]) < edge + timedelta(days=7)
        and m["metricType"] in ("LIKES", "IMPRESSIONS")
    ]
    same_rows(actual_rows(rows), expected_rows(world, inside, "PLAN", "WEEK"))
    labels = {row["key"]: row["label"] for row in rollup(alice, groupBy="ASSET")}
    assert labels == {world["A"]: "Spring offer reel", world["B"]: "Standalone carousel"}
    variant_labels = {row["label"] for row in rollup(alice, groupBy="VARIANT")}
    assert variant_labels == {"Spring offer reel (ig reel)", "Spring offer reel (tiktok reel)"}

    top = rollup(alice, groupBy="PLATFORM", types=["CLICKS"], first=2)
    all_clicks = rollup(alice, groupBy="PLATFORM", types=["CLICKS"])
    assert len(top) == 2 and top == sorted(all_clicks, key=lambda r: -r["sum"])[:2]
    assert error_code(alice.gql(ROLLUP, {"groupBy": "PLAN", "first": 0})) == "VALIDATION"


def test_bob_never_touches_alices_metrics(
    settings: Settings,
    alice: Caller,
    bob: Caller,
    world: dict[str, str],
    neo4j_session: Any,
) -> None:
    alices = metric({"assetId": world["A"]}, value=42.0)
    assert ingest(alice, [alices])["data"]["ingestPerformanceMetrics"]["created"] == 1
    for field, alice_id in (
        ("assetId", world["A"]),
        ("variantId", world["V1"]),
        ("planId", world["P"]),
    ):
        theirs, missing = (
            ingest(bob, [metric({field: alice_id})]),
            ingest(bob, [metric({field: MISSING_ID})]),
        )
        assert error_code(theirs) == error_code(missing) == "VALIDATION"
        reason = theirs["errors"][0]["extensions"]["invalid"][0]["message"]
        assert (
            reason.replace(alice_id, MISSING_ID)
            == missing["errors"][0]["extensions"]["invalid"][0]["message"]
        )
    bob_asset = create_asset(bob)["id"]
    # Metric ids are per client: bob reusing alice's id learns nothing and gets his own metric.
    reused = ingest(bob, [metric({"assetId": bob_asset}, metricId=alices["metricId"], value=1.0)])
    assert reused["data"]["ingestPerformanceMetrics"]["created"] == 1
    assert client_count(neo4j_session, "PerformanceMetric", bob) == 1
    bobs = bob.data(
        "query($id: ID!) { performanceMetric(id: $id) { value asset { id } } }",
        {"id": alices["metricId"]},
    )["performanceMetric"]
    assert bobs == {"value": 1.0, "asset": {"id": bob_asset}}
    assert (
        alice.data(
            "query($id: ID!) { performanceMetric(id: $id) { value } }", {"id": alices["metricId"]}
        )["performanceMetric"]["value"]
        == 42.0
    )

    assert ingest(bob, [metric({"assetId": bob_asset}, value=7.0)])["data"]
    for group in ("ASSET", "VARIANT", "PLAN", "PLATFORM"):
        assert all(row["key"] != bob_asset for row in rollup(alice, groupBy=group))
    assert [(r["key"], r["sum"]) for r in rollup(alice, groupBy="PLATFORM")] == [("ig", 42.0)]
    assert [(r["key"], r["sum"]) for r in rollup(bob, groupBy="ASSET")] == [(bob_asset, 8.0)]

    analyst = same_client_caller(settings, neo4j_session, alice, Role.ANALYST)
    assert error_code(ingest(analyst, [metric({"assetId": world["A"]})])) == "FORBIDDEN"
    assert error_code(record(analyst)) == "FORBIDDEN"
    assert rollup(analyst, groupBy="ASSET")[0]["sum"] == 42.0
