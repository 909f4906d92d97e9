"""An idempotent create whose input holds a map with the result codec's own tag key "$t"
(review 2 of issue 11, M-4), over real HTTP and Neo4j: it was INTERNAL (the stored result was
refused); now the first call and its retry return the same record, content exactly as sent."""

from __future__ import annotations

import uuid
from typing import Any

from tests.integration.conftest import Caller
from tests.integration.idempotency_cases import COUNT_RECORDS

REMEMBER = """mutation($i: RememberInput!, $k: String) {
  remember(input: $i, idempotencyKey: $k) { id version content } }"""


def test_content_with_tag_keys_is_stored_and_replayed_exactly(
    alice: Caller, neo4j_session: Any
) -> None:
    content = {"$t": 1, "inner": {"$t": "map", "v": {"$t": "tuple", "v": [1, None]}}}
    variables = {
        "i": {"kind": "SEMANTIC", "key": "tags", "content": content},
        "k": str(uuid.uuid4()),
    }
    first = alice.data(REMEMBER, variables)["remember"]
    assert first["content"] == content and first["version"] == 1
    assert alice.data(REMEMBER, variables)["remember"] == first
    counts = neo4j_session.run(COUNT_RECORDS, c=alice.client_id).single()
    assert (counts["n"], counts["v"]) == (1, 1)
