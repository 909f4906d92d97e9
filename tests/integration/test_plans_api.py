"""The first vertical slice over real HTTP, Neo4j and S3: plans, errors, isolation, limits."""

from __future__ import annotations

import re
from typing import Any

import httpx

from tests.integration.conftest import Caller

PLAN_FIELDS = """
id name status summary objectiveTags targetPlatforms createdBy constraintsRef
timeWindowStart timeWindowEnd createdAt updatedAt
"""
CREATE = f"mutation($input: CreatePlanInput!) {{ createPlan(input: $input) {{ {PLAN_FIELDS} }} }}"
GET = f"query($id: ID!) {{ plan(id: $id) {{ {PLAN_FIELDS} }} }}"
UPDATE = (
    f"mutation($id: ID!, $input: UpdatePlanInput!) "
    f"{{ updatePlan(id: $id, input: $input) {{ {PLAN_FIELDS} }} }}"
)
TRANSITION = (
    "mutation($id: ID!, $to: PlanStatus!) { transitionPlan(id: $id, to: $to) { id status } }"
)
LIST = """
query($where: RecordWhere, $first: Int!, $after: String) {
  plans(where: $where, first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id name status } }
  }
}
"""
FEB = {
    "name": "Feb Week 1",
    "createdBy": "AGENT",
    "timeWindowStart": "2026-02-01T00:00:00+00:00",
    "timeWindowEnd": "2026-02-07T23:59:59+00:00",
    "objectiveTags": ["LEADGEN", "AUTHORITY"],
    "targetPlatforms": ["IG", "LINKEDIN"],
    "summary": "Launch week for the spring offer",
}


def create_plan(caller: Caller, **overrides: Any) -> dict[str, Any]:
    return caller.data(CREATE, {"input": FEB | overrides})["createPlan"]


def error_code(body: dict[str, Any]) -> str:
    assert body.get("errors"), f"expected an error, got {body}"
    return str(body["errors"][0]["extensions"]["code"])


def plan_count(caller: Caller) -> int:
    return int(caller.data(LIST, {"first": 1})["plans"]["totalCount"])


def test_create_then_read_plan(alice: Caller) -> None:
    created = create_plan(alice)
    assert created["status"] == "DRAFT"
    assert created["objectiveTags"] == ["LEADGEN", "AUTHORITY"]
    fetched = alice.data(GET, {"id": created["id"]})["plan"]
    assert fetched == created
    assert fetched["timeWindowStart"].startswith("2026-02-01T00:00:00")


def test_update_changes_only_given_fields(alice: Caller) -> None:
    plan = create_plan(alice)
    updated = alice.data(UPDATE, {"id": plan["id"], "input": {"summary": "Reworked"}})
    assert updated["updatePlan"]["summary"] == "Reworked"
    assert updated["updatePlan"]["name"] == plan["name"]
    assert updated["updatePlan"]["updatedAt"] > plan["updatedAt"]


def test_status_machine_allows_and_rejects(alice: Caller) -> None:
    plan = create_plan(alice)
    assert (
        alice.data(TRANSITION, {"id": plan["id"], "to": "REVIEWED"})["transitionPlan"]["status"]
        == "REVIEWED"
    )
    body = alice.gql(TRANSITION, {"id": plan["id"], "to": "COMPLETE"})
    assert error_code(body) == "INVALID_TRANSITION"
    assert "allowed next statuses" in body["errors"][0]["message"]
    assert alice.data(GET, {"id": plan["id"]})["plan"]["status"] == "REVIEWED"


def test_pagination_filters_and_total(alice: Caller) -> None:
    made = [create_plan(alice, name=f"plan {n}") for n in range(5)]
    alice.data(TRANSITION, {"id": made[0]["id"], "to": "ARCHIVED"})
    first = alice.data(LIST, {"first": 2})["plans"]
    assert first["totalCount"] == 5 and first["pageInfo"]["hasNextPage"]
    assert [e["node"]["name"] for e in first["edges"]] == ["plan 4", "plan 3"]
    rest = alice.data(LIST, {"first": 10, "after": first["pageInfo"]["endCursor"]})["plans"]
    assert [e["node"]["name"] for e in rest["edges"]] == ["plan 2", "plan 1", "plan 0"]
    assert not rest["pageInfo"]["hasNextPage"]
    archived = alice.data(LIST, {"first": 10, "where": {"statusIn": ["ARCHIVED"]}})["plans"]
    assert archived["totalCount"] == 1 and archived["edges"][0]["node"]["id"] == made[0]["id"]
    named = alice.data(LIST, {"first": 10, "where": {"nameContains": "PLAN 3"}})["plans"]
    assert [e["node"]["name"] for e in named["edges"]] == ["plan 3"]


def test_other_client_cannot_read_list_update_or_detect(alice: Caller, bob: Caller) -> None:
    plan = create_plan(alice)
    missing_id = "00000000-0000-4000-8000-000000000000"
    for query, variables in [
        (GET, {}),
        (UPDATE, {"input": {"name": "stolen"}}),
        (TRANSITION, {"to": "ARCHIVED"}),
    ]:
        theirs = bob.gql(query, variables | {"id": plan["id"]})
        nothing = bob.gql(query, variables | {"id": missing_id})
        assert error_code(theirs) == error_code(nothing) == "NOT_FOUND"
        assert theirs["errors"][0]["message"].replace(plan["id"], "X") == nothing["errors"][0][
            "message"
        ].replace(missing_id, "X")
        assert theirs["data"] == nothing["data"] is None
    assert plan_count(bob) == 0
    assert alice.data(GET, {"id": plan["id"]})["plan"] == plan


def test_missing_or_wrong_api_key_is_401(api_url: str) -> None:
    query = {"query": "{ viewer { clientId } }"}
    for headers in [
        {},
        {"Authorization": "Bearer am_00000000_" + "x" * 43},
        {"Authorization": "Bearer not-a-key"},
        {"X-API-Key": "wrong"},
    ]:
        response = httpx.post(f"{api_url}/graphql", json=query, headers=headers)
        assert response.status_code == 401
        assert response.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"


def test_introspection_needs_no_key_but_nothing_else_passes(api_url: str) -> None:
    schema = httpx.post(f"{api_url}/graphql", json={"query": "{ __schema { queryType { name } } }"})
    assert schema.status_code == 200
    assert schema.json()["data"]["__schema"]["queryType"]["name"] == "Query"
    mixed = httpx.post(f"{api_url}/graphql", json={"query": "{ __typename viewer { clientId } }"})
    assert mixed.status_code == 401
    via_get = httpx.get(
        f"{api_url}/graphql",
        params={"query": "{ plans { totalCount } }"},
        headers={"Accept": "text/html"},
    )
    assert via_get.status_code == 401


def test_key_identifies_client_and_role(alice: Caller) -> None:
    viewer = alice.data("{ viewer { clientId role agentName } }")["viewer"]
    assert viewer == {"clientId": alice.client_id, "role": "AGENT", "agentName": "tester"}
    via_header = alice.http.post(
        "/graphql", json={"query": "{ viewer { clientId } }"}, headers={"X-API-Key": alice.key}
    )
    assert via_header.json()["data"]["viewer"]["clientId"] == alice.client_id


def test_malformed_graphql_is_a_typed_error_and_writes_nothing(alice: Caller) -> None:
    before = plan_count(alice)
    broken = alice.gql('mutation { createPlan(input: {name: "x", createdBy: AGENT}) { id ')
    assert error_code(broken) == "GRAPHQL_VALIDATION"
    unknown = alice.gql("{ plan(id: 1) { noSuchField } }")
    assert error_code(unknown) == "GRAPHQL_VALIDATION"
    assert "noSuchField" in unknown["errors"][0]["message"]
    assert plan_count(alice) == before


def test_invalid_input_is_rejected_before_writing(alice: Caller) -> None:
    before = plan_count(alice)
    cases = [
        {"name": "   "},
        {"name": "x" * 201},
        {"timeWindowEnd": "2026-01-01T00:00:00+00:00"},
        {"timeWindowStart": "2026-02-01T00:00:00"},
        {"summary": "s" * 2001},
    ]
    for overrides in cases:
        body = alice.gql(CREATE, {"input": FEB | overrides})
        assert error_code(body) == "VALIDATION", overrides
    bad_enum = alice.gql(CREATE, {"input": FEB | {"targetPlatforms": ["MYSPACE"]}})
    assert error_code(bad_enum) == "GRAPHQL_VALIDATION"
    bad_id = alice.gql(GET, {"id": "not-a-uuid"})
    assert error_code(bad_id) == "VALIDATION" and "UUID" in bad_id["errors"][0]["message"]
    plan = create_plan(alice)
    body = alice.gql(UPDATE, {"id": plan["id"], "input": {"timeWindowStart": "2027-01-01T00:00Z"}})
    assert error_code(body) == "VALIDATION"
    assert plan_count(alice) == before + 1
    assert alice.data(GET, {"id": plan["id"]})["plan"] == plan


def test_analyst_may_read_but_not_write(settings: Any, api_url: str, alice: Caller) -> None:
    from app.model.enums import Role
    from tests.integration.conftest import new_caller

    analyst = new_caller(settings, api_url, role=Role.ANALYST)
    body = analyst.gql(CREATE, {"input": FEB})
    assert error_code(body) == "FORBIDDEN"
    assert plan_count(analyst) == 0


def test_round_trip_count_is_reported_on_request(alice: Caller) -> None:
    plan = create_plan(alice)
    counted = alice.gql(GET, {"id": plan["id"]}, **{"X-Agentmem-Roundtrips": "1"})
    assert counted["extensions"]["cypherRoundTrips"] == 1
    listed = alice.gql(LIST, {"first": 5}, **{"X-Agentmem-Roundtrips": "1"})
    assert listed["extensions"]["cypherRoundTrips"] == 1
    assert "extensions" not in alice.gql(GET, {"id": plan["id"]})


def test_query_limits(alice: Caller, api_url: str) -> None:
    aliases = " ".join(f"a{n}: viewer {{ clientId }}" for n in range(40))
    body = alice.gql(f"{{ {aliases} }}")
    assert error_code(body) == "GRAPHQL_VALIDATION" and "alias" in body["errors"][0]["message"]
    huge = {"query": "{ viewer { clientId } }", "variables": {"pad": "x" * 2_000_000}}
    response = alice.http.post(
        "/graphql", json=huge, headers={"Authorization": f"Bearer {alice.key}"}
    )
    assert response.status_code == 413
    assert response.json()["errors"][0]["extensions"]["code"] == "PAYLOAD_TOO_LARGE"


def test_health_ready_and_graphiql(api_url: str) -> None:
    assert httpx.get(f"{api_url}/healthz").json() == {"status": "ok"}
    ready = httpx.get(f"{api_url}/readyz")
    assert ready.status_code == 200
    assert ready.json()["checks"] == {"neo4j": "ok", "s3": "ok"}
    page = httpx.get(f"{api_url}/graphql", headers={"Accept": "text/html"})
    assert page.status_code == 200 and "graphiql" in page.text.lower()
    assert page.headers["x-request-id"]


def test_graphiql_assets_are_served_locally(api_url: str) -> None:
    # `bash app/services/env.sh test` fetches them from the npm registry before the suite runs.
    page = httpx.get(f"{api_url}/graphql", headers={"Accept": "text/html"}).text
    assert "unpkg.com" not in page
    assets = re.findall(r'(?:src|href)="(/graphiql-assets/[^"]+)"', page)
    assert len(assets) >= 5
    for asset in assets:
        response = httpx.get(f"{api_url}{asset}")
        assert response.status_code == 200 and response.content, asset
