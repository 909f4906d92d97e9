"""API keys (issue 11, finding 5) over real HTTP and Neo4j: revocation and rotation refused by a
second API process within a second although it had the key cached, expiry, the admin queries
and mutations scoped by client, the CLI, and the key lookup on the unique hash index."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
import uvicorn

from app.cli.commands import main
from app.domain.keys.repository import FIND_KEY
from app.model.enums import Role
from app.settings import Settings
from app.web.app import create_app
from tests.integration.asset_helpers import MISSING_ID, error_code
from tests.integration.conftest import Caller, _free_port, new_caller

KEY = "id prefix role agentName status createdAt expiresAt revokedAt lastUsedAt rotatedFrom"
LIST = f"query($all: Boolean!) {{ apiKeys(includeRevoked: $all) {{ {KEY} }} }}"
CREATE = f"""mutation($input: CreateApiKeyInput!) {{
  createApiKey(input: $input) {{ secret key {{ {KEY} }} }} }}"""
REVOKE = f"mutation($id: ID!) {{ revokeApiKey(id: $id) {{ {KEY} }} }}"
ROTATE = f"""mutation($id: ID!, $in: Int) {{
  rotateApiKey(id: $id, expiresInSeconds: $in) {{ secret key {{ {KEY} }} }} }}"""
VIEWER = "{ viewer { clientId role agentName } }"
REFUSED_WITHIN_S = 1.0


@contextmanager
def second_api(settings: Settings) -> Iterator[str]:
    """Another instance of the app (its own key cache, driver and event loop), like a second
    API process behind a load balancer."""
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "second API did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def status(url: str, secret: str) -> int:
    response = httpx.post(
        f"{url}/graphql",
        json={"query": VIEWER},
        headers={"Authorization": f"Bearer {secret}"},
        timeout=30,
    )
    return response.status_code


def seconds_until_refused(url: str, secret: str, limit_s: float = 10.0) -> float:
    """Ask with the key until it gets 401; how long that took."""
    started = time.monotonic()
    while status(url, secret) == 200:
        assert time.monotonic() - started < limit_s, "the key is still accepted"
    return time.monotonic() - started


@pytest.fixture
def admin(settings: Settings, api_url: str) -> Caller:
    return new_caller(settings, api_url, role=Role.ADMIN)


def create(admin: Caller, **fields: Any) -> dict[str, Any]:
    given = {"role": "AGENT", "agentName": "brad"} | fields
    return dict(admin.data(CREATE, {"input": given})["createApiKey"])


def test_revoked_key_is_refused_by_another_process_that_had_it_cached(
    settings: Settings, api_url: str, admin: Caller
) -> None:
    made = create(admin)
    assert made["key"]["status"] == "ACTIVE" and made["key"]["agentName"] == "brad"
    with second_api(settings) as other:
        # Both processes accept (and so cache) the key right up to the revocation.
        for _ in range(5):
            assert status(api_url, made["secret"]) == status(other, made["secret"]) == 200
        revoked = admin.data(REVOKE, {"id": made["key"]["id"]})["revokeApiKey"]
        elapsed = seconds_until_refused(other, made["secret"])
        assert revoked["status"] == "REVOKED" and revoked["revokedAt"] is not None
        assert elapsed < REFUSED_WITHIN_S, elapsed
        assert status(api_url, made["secret"]) == 401
    again = admin.data(REVOKE, {"id": made["key"]["id"]})["revokeApiKey"]
    assert again["revokedAt"] == revoked["revokedAt"]  # revoking twice changes nothing


def test_rotation_gives_a_new_secret_and_refuses_the_old_one(
    settings: Settings, api_url: str, admin: Caller
) -> None:
    made = create(admin)
    with second_api(settings) as other:
        assert status(other, made["secret"]) == 200
        rotated = admin.data(ROTATE, {"id": made["key"]["id"], "in": 3600})["rotateApiKey"]
        assert seconds_until_refused(other, made["secret"]) < REFUSED_WITHIN_S
        assert status(other, rotated["secret"]) == 200
    new = rotated["key"]
    assert rotated["secret"] != made["secret"] and new["id"] != made["key"]["id"]
    assert (new["role"], new["agentName"], new["rotatedFrom"]) == (
        "AGENT",
        "brad",
        made["key"]["id"],
    )
    expires = datetime.fromisoformat(new["expiresAt"])
    assert timedelta(minutes=59) < expires - datetime.now(UTC) <= timedelta(hours=1)
    same = Caller(http=admin.http, key=rotated["secret"], client_id=admin.client_id)
    assert same.data(VIEWER)["viewer"] == {
        "clientId": admin.client_id,
        "role": "AGENT",
        "agentName": "brad",
    }
    assert error_code(admin.gql(ROTATE, {"id": made["key"]["id"]})) == "CONFLICT"  # revoked
    listed = {k["id"]: k["status"] for k in admin.data(LIST, {"all": True})["apiKeys"]}
    assert listed[made["key"]["id"]] == "REVOKED" and listed[new["id"]] == "ACTIVE"
    active = admin.data(LIST, {"all": False})["apiKeys"]
    assert made["key"]["id"] not in {k["id"] for k in active}


def test_expired_keys_are_refused(settings: Settings, api_url: str, admin: Caller) -> None:
    brief = create(admin, expiresInSeconds=2)
    assert status(api_url, brief["secret"]) == 200
    time.sleep(2.1)
    assert status(api_url, brief["secret"]) == 401
    assert {k["id"]: k["status"] for k in admin.data(LIST, {"all": True})["apiKeys"]}[
        brief["key"]["id"]
    ] == "EXPIRED"
    past = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
    assert error_code(admin.gql(CREATE, {"input": {"role": "ADMIN", "expiresAt": past}})) == (
        "VALIDATION"
    )
    both = {"role": "ADMIN", "expiresAt": past, "expiresInSeconds": 5}
    assert error_code(admin.gql(CREATE, {"input": both})) == "VALIDATION"
    assert error_code(admin.gql(CREATE, {"input": {"role": "AGENT"}})) == "VALIDATION"


def test_rotation_keeps_the_expiry_unless_given(admin: Caller, neo4j_session: Any) -> None:
    made = create(admin, expiresInSeconds=3600)
    kept = admin.data(ROTATE, {"id": made["key"]["id"]})["rotateApiKey"]["key"]
    assert kept["expiresAt"] == made["key"]["expiresAt"] and kept["status"] == "ACTIVE"
    # An expired key's replacement needs an expiry of its own.
    past = datetime.now(UTC) - timedelta(minutes=1)
    expire = "MATCH (k:ApiKey {id: $id}) SET k.expires_at = $at"
    neo4j_session.run(expire, id=kept["id"], at=past).consume()
    refused = admin.gql(ROTATE, {"id": kept["id"]})
    assert error_code(refused) == "VALIDATION"
    assert refused["errors"][0]["extensions"]["field"] == "expires_at"
    assert "expiresAt or expiresInSeconds" in refused["errors"][0]["message"]
    renewed = admin.data(ROTATE, {"id": kept["id"], "in": 60})["rotateApiKey"]["key"]
    assert renewed["status"] == "ACTIVE" and renewed["rotatedFrom"] == kept["id"]
    permanent = create(admin)
    rotated = admin.data(ROTATE, {"id": permanent["key"]["id"]})["rotateApiKey"]["key"]
    assert rotated["expiresAt"] is None
    naive = {"role": "AGENT", "agentName": "brad", "expiresAt": "2099-01-01T00:00:00"}
    body = admin.gql(CREATE, {"input": naive})
    assert error_code(body) == "VALIDATION"
    assert body["errors"][0]["extensions"]["field"] == "expires_at"


def test_admins_manage_only_their_own_clients_keys(
    settings: Settings, api_url: str, admin: Caller
) -> None:
    other_admin = new_caller(settings, api_url, role=Role.ADMIN)
    made = create(admin)
    theirs = {k["id"] for k in other_admin.data(LIST, {"all": True})["apiKeys"]}
    assert made["key"]["id"] not in theirs and len(theirs) == 1  # their own admin key only
    for document in (REVOKE, ROTATE):
        assert error_code(other_admin.gql(document, {"id": made["key"]["id"]})) == "NOT_FOUND"
        assert error_code(other_admin.gql(document, {"id": MISSING_ID})) == "NOT_FOUND"
    assert error_code(admin.gql(REVOKE, {"id": "nope"})) == "VALIDATION"
    assert status(api_url, made["secret"]) == 200  # untouched by the other client
    agent = Caller(http=admin.http, key=made["secret"], client_id=admin.client_id)
    assert error_code(agent.gql(LIST, {"all": True})) == "FORBIDDEN"
    assert error_code(agent.gql(CREATE, {"input": {"role": "ADMIN"}})) == "FORBIDDEN"
    own_id = next(
        k["id"] for k in admin.data(LIST, {"all": True})["apiKeys"] if k["role"] == "ADMIN"
    )
    assert error_code(admin.gql(REVOKE, {"id": own_id})) == "FORBIDDEN"
    listing = admin.gql(LIST, {"all": True})
    digest = hashlib.sha256(made["secret"].encode()).hexdigest()
    assert digest not in str(listing) and made["secret"] not in str(listing)


def test_cli_lists_revokes_and_rotates_keys(
    settings: Settings, api_url: str, admin: Caller, neo4j_session: Any, capsys: Any
) -> None:
    name = neo4j_session.run(
        "MATCH (c:Client {id: $id}) RETURN c.name AS name", id=admin.client_id
    ).single()["name"]
    assert main(["create-key", "--client", name, "--role", "reviewer", "--expires-in", "30d"]) == 0
    created = capsys.readouterr().out.splitlines()
    key_id = created[0].split("key_id=")[1].split()[0]
    assert "expires_at=" in created[0] and status(api_url, created[1]) == 200
    assert main(["keys", "rotate", key_id, "--expires-in", "2h"]) == 0
    rotated = capsys.readouterr().out.splitlines()
    new_id = rotated[0].split("key_id=")[1].split()[0]
    assert main(["keys", "revoke", new_id]) == 0
    assert new_id in capsys.readouterr().out
    assert main(["keys", "list", "--client", name]) == 0
    table = capsys.readouterr().out
    assert created[1] not in table and hashlib.sha256(created[1].encode()).hexdigest() not in table
    rows = {line.split()[0]: line.split() for line in table.splitlines()[1:]}
    assert "revoked" in rows[key_id] and "revoked" in rows[new_id]
    assert seconds_until_refused(api_url, rotated[1]) < REFUSED_WITHIN_S
    assert main(["keys", "revoke", MISSING_ID]) == 1
    assert main(["keys", "rotate", key_id, "--expires-in", "soon"]) == 1


def test_a_key_lookup_is_one_unique_index_seek(neo4j_session: Any) -> None:
    params = {"key_hash": "0" * 64, "now": datetime.now(UTC)}
    plan = neo4j_session.run("EXPLAIN " + FIND_KEY, params).consume().plan
    operators: list[str] = []

    def walk(step: Any) -> None:
        operators.append(step["operatorType"])
        for child in step.get("children", []):
            walk(child)

    walk(plan)
    assert any(op.startswith("NodeUniqueIndexSeek") for op in operators), operators
