"""Keyless introspection (app/api/edge/introspection.py, review E2): answers cached by the
normalised request, builds one at a time off the event loop, and a budget of builds for all
addresses."""

from __future__ import annotations

import asyncio
import gc
import json
import threading
import time
from typing import Any

from starlette.types import Message, Receive, Scope, Send

from app.api.edge.introspection import IntrospectionAnswers, _request_key, introspection_document

STANDARD = "query IntrospectionQuery { __schema { queryType { name } types { name } } }"


def _key(query: str, headers: list[tuple[bytes, bytes]] | None = None, **request: Any) -> bytes:
    request = {"query": query, **request}
    document = introspection_document(request)
    assert document is not None
    return _request_key({"headers": headers or []}, document, request)


def test_answers_are_keyed_by_the_document_not_its_spelling() -> None:
    respelled = "# a comment\nquery   IntrospectionQuery{__schema{queryType{name},types{name}}}"
    assert _key(STANDARD) == _key(respelled) == _key(STANDARD + "  # another")
    different = [
        _key(STANDARD.replace("types { name }", "types { kind }")),
        _key(STANDARD, operationName="IntrospectionQuery"),
        _key(STANDARD, variables={"a": 1}),
        _key(STANDARD, extensions={"a": 1}),
        _key(STANDARD, [(b"x-agentmem-roundtrips", b"1")]),
    ]
    assert len({_key(STANDARD), *different}) == 1 + len(different)


class SlowView:
    """Stands in for the GraphQL view: each build holds its thread 0.3 s, as a 0.2-1.7 s
    introspection does, and answers with the query it was sent."""

    def __init__(self) -> None:
        self.builds = 0
        self.threads: set[int] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.builds += 1
        self.threads.add(threading.get_ident())
        body = (await receive())["body"]
        time.sleep(0.3)  # CPU work: nothing else runs on this thread meanwhile
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})


async def _ask(
    keyless: IntrospectionAnswers, query: str, address: str
) -> tuple[int, dict[str, Any]]:
    body = json.dumps({"query": query}).encode()
    scope = {"type": "http", "client": (address, 1), "headers": []}
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    assert await keyless.answered(scope, body, json.loads(body), send)
    return sent[0]["status"], json.loads(sent[1]["body"])


def test_builds_run_off_the_event_loop_one_at_a_time() -> None:
    view = SlowView()

    async def scenario() -> float:
        keyless = IntrospectionAnswers(view, per_minute=30)
        gaps: list[float] = []
        done = asyncio.Event()

        async def tick() -> None:
            last = time.perf_counter()
            while not done.is_set():
                await asyncio.sleep(0.005)
                now = time.perf_counter()
                gaps.append(now - last)
                last = now

        ticker = asyncio.create_task(tick())
        asks = [_ask(keyless, STANDARD + f" # {n}", f"10.0.0.{n}") for n in range(4)]
        answers = await asyncio.gather(*asks)
        done.set()
        await ticker
        assert [status for status, _ in answers] == [200] * 4
        assert all(body["query"].startswith(STANDARD) for _, body in answers)
        return max(gaps)

    gc.collect()  # a full collection of the suite's heap inside the window is no loop stall
    worst_gap = asyncio.run(scenario())
    assert view.builds == 1  # the same document, respelled: built once, the others waited
    assert threading.get_ident() not in view.threads
    assert worst_gap < 0.2  # the loop kept running while the build held its thread 0.3 s


def test_builds_have_one_budget_for_all_addresses_and_the_cache_is_free() -> None:
    view = SlowView()

    async def scenario() -> list[tuple[int, dict[str, Any]]]:
        keyless = IntrospectionAnswers(view, per_minute=2)
        queries = [STANDARD.replace("name } }", f"name }} a{n}: __typename }}") for n in range(3)]
        answers = [await _ask(keyless, query, f"10.0.1.{n}") for n, query in enumerate(queries)]
        answers.append(await _ask(keyless, queries[0] + " # respelled", "10.0.1.9"))
        return answers

    (first, second, third, cached) = asyncio.run(scenario())
    assert first[0] == second[0] == cached[0] == 200 and view.builds == 2
    assert cached[1] == first[1]
    status, refusal = third
    error = refusal["errors"][0]
    assert status == 429 and error["extensions"]["code"] == "RATE_LIMITED"
    assert "too many distinct introspections" in error["message"]
    assert error["extensions"]["retryAfterSeconds"] >= 1


def test_other_requests_are_left_to_the_key_check() -> None:
    keyless = IntrospectionAnswers(SlowView(), per_minute=30)
    scope = {"type": "http", "client": ("10.0.2.1", 1), "headers": []}

    async def never(message: Message) -> None:
        raise AssertionError("nothing is sent")

    for request in [{"query": "{ viewer { clientId } }"}, [{"query": STANDARD}], {"query": 5}]:
        assert not asyncio.run(keyless.answered(scope, b"", request, never))


def test_keyed_introspection_shares_the_cache_and_the_worker_but_not_the_limits() -> None:
    """Second review E-2: with a key, an introspection was built on the event loop each time."""
    view = SlowView()
    scope = {"type": "http", "client": ("10.0.3.1", 1), "headers": JSON_HEADERS}

    async def scenario() -> tuple[list[bool], list[int]]:
        answers = IntrospectionAnswers(view, per_minute=1)
        sent: list[Message] = []

        async def send(message: Message) -> None:
            sent.append(message)

        async def keyed(query: str) -> bool:
            body = json.dumps({"query": query}).encode()
            return await answers.answered_with_key(dict(scope), body, send)

        found = [await keyed(STANDARD + f" # {n}") for n in range(2)]  # built once
        found.append(await keyed(STANDARD.replace("name } }", "kind } }")))  # over per_minute
        found += [await keyed(query) for query in OTHERS]
        return found, [m["status"] for m in sent if "status" in m]

    found, statuses = asyncio.run(scenario())
    assert found == [True, True, True] + [False] * len(OTHERS)
    assert statuses == [200, 200, 200] and view.builds == 2
    assert threading.get_ident() not in view.threads


JSON_HEADERS = [(b"content-type", b"application/json")]
OTHERS = [
    "{ __typename }",  # cheap: answered by the view as ever
    "{ __schema { queryType { name } } viewer { clientId } }",
    "{ viewer { clientId } }",
]
