"""The access log's request data (seed 004): variables sanitised (secrets replaced, long values
cut) within the log's text limit, and the facts of the request being served only."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from app.domain.kernel import request_facts
from app.domain.kernel.request_facts import (
    MAX_REQUEST_DATA,
    REDACTED,
    RequestFacts,
    sanitised,
    secret_key,
)
from app.domain.memory.access_log_batches import MAX_TEXT

API_KEY = "am_0123abcd_" + "x" * 43


def data(body: Any) -> Any:
    text = RequestFacts(body=body).request_data()
    assert text is None or len(text) <= MAX_REQUEST_DATA
    return None if text is None else json.loads(text)


def test_the_request_data_fits_the_access_logs_longest_text() -> None:
    # The writer cuts longer texts (access_log_batches.safe_text), which would break the JSON.
    assert MAX_REQUEST_DATA <= MAX_TEXT


def test_secrets_are_replaced_by_key_name_and_by_value() -> None:
    variables = {
        "input": {
            "password": "hunter2",
            "apiKey": "k-1",
            "client_secret": "s",
            "accessToken": "t",
            "note": f"my key is {API_KEY}",
            "header": "Bearer abc.def",
            "tokenBudget": 800,
            "maxTokens": 5,
            "key": "favourite-colour",
        }
    }
    shown = data({"query": "mutation { x }", "operationName": "Op", "variables": variables})
    assert shown["operationName"] == "Op" and "query" not in shown
    kept = shown["variables"]["input"]
    for name in ("password", "apiKey", "client_secret", "accessToken", "note", "header"):
        assert kept[name] == REDACTED, name
    assert (kept["tokenBudget"], kept["maxTokens"], kept["key"]) == (800, 5, "favourite-colour")


def test_secret_key_names() -> None:
    assert all(map(secret_key, ["password", "PRIVATE_KEY", "sessionToken", "Authorization"]))
    assert not any(map(secret_key, ["tokenBudget", "keyId", "monkey", "passage", "secretary"]))


def test_long_values_are_cut_with_what_was_left_out() -> None:
    long_text = "é" * 5_000
    shown = data({"variables": {"text": long_text, "tags": list(range(50))}})
    text = shown["variables"]["text"]
    assert text.startswith("é" * 16) and text.endswith(f"(+{5_000 - len(text.split('…')[0])})")
    assert len(shown["variables"]["tags"]) < 50 and shown["variables"]["tags"][-1].startswith("…")


def test_limits_tighten_until_the_json_fits() -> None:
    wide = {f"field{i}": {"nested": ["v" * 200] * 20} for i in range(40)}
    loose = json.dumps(sanitised({"variables": wide}, *request_facts.LIMITS[0]))
    assert len(loose) > MAX_REQUEST_DATA  # the first limits are not enough here...
    shown = data({"variables": wide})  # ...so tighter ones were used
    assert shown["variables"] and "…" in json.dumps(shown, ensure_ascii=False)


def test_a_batch_shows_each_operation_and_no_body_shows_nothing() -> None:
    shown = data([{"operationName": "A", "variables": {"x": 1}}, {"query": "{ y }"}])
    assert shown == [
        {"operationName": "A", "variables": {"x": 1}},
        {"operationName": None, "variables": {}},
    ]
    assert data(None) is None and data("not an operation") is None


def test_facts_belong_to_the_request_that_started_them() -> None:
    async def request(address: str) -> tuple[str | None, Any]:
        request_facts.start_request(address, None)
        await asyncio.sleep(0)  # the other request runs meanwhile
        request_facts.note_body({"variables": {"who": address}})
        await asyncio.sleep(0)
        facts = request_facts.current()
        assert facts is not None
        return facts.client_address, facts.body["variables"]["who"]

    async def both() -> list[tuple[str | None, Any]]:
        return list(await asyncio.gather(request("10.0.0.1"), request("10.0.0.2")))

    assert asyncio.run(both()) == [("10.0.0.1", "10.0.0.1"), ("10.0.0.2", "10.0.0.2")]
    request_facts.note_body({"variables": {}})  # outside a request: nothing to note
    assert request_facts.current() is None
