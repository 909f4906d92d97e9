"""The change feed (issue 17), over the real Neo4j: every write is in it with who made it;
`changes(after:)` pages it without skipping or repeating, isolated per client; a cursor older
than the retention is refused; subscriptions over graphql-transport-ws receive changes written
through another API process (a `python -m app serve` subprocess), resume from a cursor losing
nothing, and never see another client's; `node(id:)` reads any record by id."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from app.domain.changes import ChangeFeedRetention
from app.graph.executor import GraphExecutor
from app.runtime.services import connected
from app.settings import Settings
from tests.integration.conftest import Caller, _free_port
from tests.integration.feed_helpers import subscription
from tests.integration.test_many_processes import _env, _spawn, _wait_healthy

CREATE_PLAN = (
    "mutation($name: String!) { createPlan(input: {name: $name, createdBy: AGENT}) { id } }"
)
UPDATE_PLAN = """mutation($id: ID!, $summary: String!) {
  updatePlan(id: $id, input: {summary: $summary}) { id } }"""
CHANGES = """query($after: String, $types: [RecordType!], $first: Int! = 50) {
  changes(after: $after, types: $types, first: $first) {
    endCursor hasMore
    changes { cursor operation action recordType recordId parentId keyId agent at
              record { __typename ... on Plan { name summary } } } } }"""
NODE = """query($id: ID!) { node(id: $id) {
  __typename id ... on Plan { name } ... on ConversationThread { platform } } }"""
CREATE_THREAD = """mutation($ref: String!) { createConversationThread(input: {
  platform: INSTAGRAM, threadType: DM, externalThreadRef: $ref}) { thread { id } } }"""
APPEND = """mutation($thread: ID!, $ref: String!, $text: String!) {
  appendConversationEvent(input: {threadId: $thread, direction: INBOUND,
    eventType: DM_MESSAGE, externalRef: $ref, text: $text}) { event { id } } }"""
FOLLOW_THREAD = """subscription($thread: ID!, $after: String) {
  threadActivity(threadId: $thread, after: $after) {
    cursor action recordType recordId parentId
    record { ... on ConversationEvent { text } } } }"""
HEAD = "{ changesHead }"
FOLLOW_ALL = """subscription($after: String) {
  changes(after: $after) { cursor operation recordType recordId } }"""


def _plan(caller: Caller, name: str) -> str:
    return str(caller.data(CREATE_PLAN, {"name": name})["createPlan"]["id"])


def _changes(caller: Caller, **variables: Any) -> dict[str, Any]:
    return dict(caller.data(CHANGES, variables)["changes"])


def test_each_write_is_in_the_feed_with_its_actor_and_only_the_writers_client(
    alice: Caller, bob: Caller
) -> None:
    start = _changes(alice)["endCursor"]
    plan_id = _plan(alice, "feed plan")
    alice.data(UPDATE_PLAN, {"id": plan_id, "summary": "changed"})
    page = _changes(alice, after=start)
    mine = [c for c in page["changes"] if c["recordId"] == plan_id]
    assert [(c["operation"], c["action"]) for c in mine] == [
        ("createPlan", "CREATED"),
        ("updatePlan", "UPDATED"),
    ]
    assert all(c["recordType"] == "PLAN" and c["agent"] == "tester" and c["keyId"] for c in mine)
    assert mine[-1]["record"] == {"__typename": "Plan", "name": "feed plan", "summary": "changed"}
    assert int(mine[1]["cursor"]) == int(mine[0]["cursor"]) + 1
    assert page["endCursor"] == mine[-1]["cursor"] and not page["hasMore"]
    others = _changes(bob, after="0")["changes"]
    assert plan_id not in {c["recordId"] for c in others}


def test_pages_after_a_cursor_neither_skip_nor_repeat_under_concurrent_writers(
    alice: Caller, api_url: str
) -> None:
    start = _changes(alice)["endCursor"]

    def write(n: int) -> str:
        with httpx.Client(base_url=api_url, timeout=60) as http:
            caller = Caller(http, alice.key, alice.client_id)
            return _plan(caller, f"concurrent {n}")

    with ThreadPoolExecutor(max_workers=8) as pool:
        written = set(pool.map(write, range(40)))
    seen: list[dict[str, Any]] = []
    cursor, more = start, True
    while more:
        page = _changes(alice, after=cursor, first=7)
        seen += page["changes"]
        cursor, more = page["endCursor"], page["hasMore"]
    positions = [int(c["cursor"]) for c in seen]
    assert positions == list(range(int(start) + 1, int(start) + 1 + len(seen)))
    assert {c["recordId"] for c in seen} == written
    assert alice.data(HEAD)["changesHead"] == seen[-1]["cursor"]


def test_types_filter_and_an_expired_cursor(alice: Caller, settings: Settings) -> None:
    plan_id = _plan(alice, "typed")
    thread = alice.data(CREATE_THREAD, {"ref": f"ig:{uuid.uuid4().hex}"})
    thread_id = thread["createConversationThread"]["thread"]["id"]
    only_threads = _changes(alice, after="0", types=["CONVERSATION_THREAD"])["changes"]
    assert [c["recordId"] for c in only_threads] == [thread_id]
    node = alice.data(NODE, {"id": plan_id})["node"]
    assert node == {"__typename": "Plan", "id": plan_id, "name": "typed"}

    async def purge_all() -> None:
        async with connected(settings) as graph:
            retention = ChangeFeedRetention(GraphExecutor(graph.driver, database=graph.database), 1)
            await retention(alice.client_id, now=_far_future())

    asyncio.run(purge_all())
    body = alice.gql(CHANGES, {"after": "0"})
    error = body["errors"][0]
    assert error["extensions"]["code"] == "CURSOR_EXPIRED", error
    assert "older than the change feed keeps" in error["message"]
    fresh = _changes(alice)  # no cursor: the oldest kept, which is nothing now
    assert fresh["changes"] == [] and int(fresh["endCursor"]) >= 2


def test_node_reads_like_an_unknown_id_for_another_client(alice: Caller, bob: Caller) -> None:
    plan_id = _plan(alice, "private")
    assert bob.data(NODE, {"id": plan_id})["node"] is None
    assert bob.data(NODE, {"id": str(uuid.uuid4())})["node"] is None


def _far_future() -> Any:
    from datetime import UTC, datetime, timedelta

    return datetime.now(UTC) + timedelta(days=2)


@pytest.fixture(scope="module")
def other_api(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A second API process (`python -m app serve`), as production runs one."""
    logs, port = tmp_path_factory.mktemp("feed"), _free_port()
    env = _env(settings) | {"AGENTMEM_API_PORT": str(port)}
    log: Path = logs / "api.log"
    process = _spawn("serve", env, log)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, process, log)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)


def test_a_subscriber_gets_writes_of_another_process_and_resumes_without_loss(
    alice: Caller, bob: Caller, api_url: str, other_api: str
) -> None:
    with httpx.Client(base_url=other_api, timeout=60) as http:
        writer = Caller(http, alice.key, alice.client_id)
        intruder = Caller(httpx.Client(base_url=other_api, timeout=60), bob.key, bob.client_id)
        thread = writer.data(CREATE_THREAD, {"ref": f"ig:{uuid.uuid4().hex}"})
        thread_id = thread["createConversationThread"]["thread"]["id"]
        bobs = intruder.data(CREATE_THREAD, {"ref": f"ig:{uuid.uuid4().hex}"})
        bobs_id = bobs["createConversationThread"]["thread"]["id"]

        def say(caller: Caller, thread: str, text: str) -> None:
            variables = {"thread": thread, "ref": uuid.uuid4().hex, "text": text}
            caller.data(APPEND, variables)

        with subscription(api_url, alice.key) as feed, subscription(api_url, bob.key) as other:
            # From the feeds' positions now (a subscription without `after` starts when the
            # server gets to it, which may be after the writes below).
            heads = [c.data(HEAD)["changesHead"] for c in (writer, intruder)]
            feed.subscribe(FOLLOW_THREAD, {"thread": thread_id, "after": heads[0]})
            other.subscribe(FOLLOW_ALL, {"after": heads[1]})
            # Alice's thread id, followed with Bob's key: as an id that does not exist.
            other.subscribe(FOLLOW_THREAD, {"thread": thread_id, "after": heads[1]}, sid="2")
            say(intruder, bobs_id, "bob's own")
            say(writer, thread_id, "first")
            got = feed.next()["threadActivity"]
            assert (got["recordType"], got["action"], got["parentId"]) == (
                "CONVERSATION_EVENT",
                "CREATED",
                thread_id,
            )
            assert got["record"] == {"text": "first"}
            bobs_messages = other.drain(1.5)
            assert not any("threadActivity" in message for message in bobs_messages)
            bob_sees = [message["changes"] for message in bobs_messages]
            assert ("CONVERSATION_EVENT", "appendConversationEvent") in {
                (c["recordType"], c["operation"]) for c in bob_sees
            }
            assert {thread_id, got["recordId"]}.isdisjoint(c["recordId"] for c in bob_sees)
            cursor = got["cursor"]
        # Disconnected: what is written meanwhile arrives on resuming from the last cursor.
        for text in ("second", "third"):
            say(writer, thread_id, text)
        with subscription(api_url, alice.key) as feed:
            feed.subscribe(FOLLOW_THREAD, {"thread": thread_id, "after": cursor})
            texts = [feed.next()["threadActivity"]["record"]["text"] for _ in range(2)]
            assert texts == ["second", "third"]
            feed.nothing_for(0.5)


def test_a_connection_without_a_valid_key_is_closed(api_url: str) -> None:
    with pytest.raises((ConnectionClosed, AssertionError)):
        with subscription(api_url, "am_00000000_not-a-key-at-all-xxxxxxxxxx") as feed:
            feed.subscribe(FOLLOW_ALL, {})
            feed.next(timeout_s=5)
