"""Persisted queries (issue 17), Apollo's protocol over the real service: an unknown hash gets
PERSISTED_QUERY_NOT_FOUND, the document sent with its hash registers it, then the hash alone
runs it (in any API process: the documents live in Neo4j); a wrong hash or a malformed extension
is refused with its own code; another client's hash is unknown."""

from __future__ import annotations

import hashlib
from typing import Any

from tests.integration.conftest import Caller

QUERY = "query Who { viewer { clientId role } }"
HASH = hashlib.sha256(QUERY.encode()).hexdigest()


def _post(caller: Caller, body: dict[str, Any]) -> Any:
    response = caller.http.post(
        "/graphql", json=body, headers={"Authorization": f"Bearer {caller.key}"}
    )
    assert response.status_code == 200, response.text
    return response.json()


def _hash_only(digest: str) -> dict[str, Any]:
    return {"extensions": {"persistedQuery": {"version": 1, "sha256Hash": digest}}}


def _code(body: Any) -> str:
    return str(body["errors"][0]["extensions"]["code"])


def test_register_then_send_only_the_hash(alice: Caller, bob: Caller) -> None:
    # A document of alice's own (a literal in it), so its hash is new for this client.
    query = QUERY.replace("Who", f"Who{alice.client_id.replace('-', '_')}")
    digest = hashlib.sha256(query.encode()).hexdigest()
    assert _code(_post(alice, _hash_only(digest))) == "PERSISTED_QUERY_NOT_FOUND"
    registered = _post(alice, {"query": query, **_hash_only(digest)})
    assert registered["data"]["viewer"]["clientId"] == alice.client_id
    again = _post(alice, _hash_only(digest))
    assert again == {"data": {"viewer": {"clientId": alice.client_id, "role": "AGENT"}}}
    assert _code(_post(bob, _hash_only(digest))) == "PERSISTED_QUERY_NOT_FOUND"


def test_a_wrong_hash_and_a_malformed_extension_are_refused(alice: Caller) -> None:
    wrong = _post(alice, {"query": QUERY, **_hash_only("0" * 64)})
    assert _code(wrong) == "PERSISTED_QUERY_HASH_MISMATCH"
    assert "SHA-256" in wrong["errors"][0]["message"]
    malformed = _post(alice, {"extensions": {"persistedQuery": {"version": 2, "sha256Hash": HASH}}})
    assert _code(malformed) == "PERSISTED_QUERY_INVALID"
