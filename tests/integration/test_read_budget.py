"""A per-request budget on bytes read from object storage (review 2 of issue 11, M-2), over real
HTTP, Neo4j and S3, on an app whose budget is 1 MB: a list of records whose content lives in
object storage, or aliases of it, past the budget is refused with VALIDATION naming content;
within it (or without content) it is answered; every path that reads stored content shares the
one budget (event text too); summarizeThread reads only the start of long events, so a thread
of long events stays summarizable within the budget."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from app.settings import Settings
from tests.integration.conftest import Caller, new_caller, serve_in_thread

BUDGET = 1024 * 1024
RECORD_BYTES = 300_000  # each record's content: in object storage, about 0.3 of the budget
REMEMBER = """mutation($i: RememberInput!) { remember(input: $i) { id } }"""
LIST = """query($n: Int!) { memories(first: $n) { nodes { key content } } }"""
KEYS = """query { memories(first: 50) { nodes { key } } }"""


@pytest.fixture(scope="module")
def budget_url(settings: Settings) -> Iterator[str]:
    update = {"request_read_max_bytes": BUDGET, "memory_inline_content_max": 1_000}
    yield from serve_in_thread(settings.model_copy(update=update))


@pytest.fixture(scope="module")
def writer(settings: Settings, budget_url: str) -> Caller:
    """A new client with five records whose content lives in object storage."""
    caller = new_caller(settings, budget_url)
    for n in range(5):
        content = {"n": n, "blob": "x" * RECORD_BYTES}
        caller.data(REMEMBER, {"i": {"kind": "SEMANTIC", "key": f"k{n}", "content": content}})
    return caller


def codes(body: dict[str, object]) -> list[str]:
    errors = body.get("errors") or []
    assert isinstance(errors, list)
    return [error["extensions"]["code"] for error in errors]


def test_a_list_within_the_budget_is_answered(writer: Caller) -> None:
    nodes = writer.data(LIST, {"n": 3})["memories"]["nodes"]
    assert len(nodes) == 3 and all(len(node["content"]["blob"]) == RECORD_BYTES for node in nodes)
    assert len(writer.data(KEYS)["memories"]["nodes"]) == 5


def test_a_list_past_the_budget_is_refused_naming_content(writer: Caller) -> None:
    body = writer.gql(LIST, {"n": 5})
    assert codes(body) == ["VALIDATION"]
    error = body["errors"][0]
    assert "leave out content" in error["message"] and error["extensions"]["field"] == "content"
    assert error["extensions"]["limitBytes"] == BUDGET


def test_aliases_share_one_budget(writer: Caller) -> None:
    aliased = " ".join(f"a{n}: memories(first: 2) {{ nodes {{ content }} }}" for n in range(3))
    body = writer.gql(f"query {{ {aliased} }}")
    assert "VALIDATION" in codes(body)  # 3 x 2 x 0.3 MB: one alias at least is refused


THREAD = """mutation($i: CreateConversationThreadInput!) {
  createConversationThread(input: $i) { thread { id } } }"""
EVENT = """mutation($i: AppendConversationEventInput!) {
  appendConversationEvent(input: $i) { event { id } } }"""
SUMMARIZE = """mutation($t: ID!) { summarizeThread(threadId: $t) { summary { summaryShort } } }"""


def test_event_text_shares_the_budget_and_summaries_read_only_the_start(
    writer: Caller, budget_url: str
) -> None:
    thread_input = {"platform": "INSTAGRAM", "threadType": "DM", "externalThreadRef": "t-budget"}
    thread = writer.data(THREAD, {"i": thread_input})["createConversationThread"]["thread"]
    events = []
    for n in range(6):
        text = "Could you send your address? " + "y" * 190_000
        event = {
            "threadId": thread["id"],
            "direction": "OUTBOUND" if n % 2 else "INBOUND",
            "eventType": "DM_MESSAGE",
            "externalRef": f"e{n}",
            "text": text,
        }
        events.append(writer.data(EVENT, {"i": event})["appendConversationEvent"]["event"]["id"])
    one = writer.data("query($e: ID!) { conversationEventText(id: $e) }", {"e": events[0]})
    assert len(one["conversationEventText"]) == 190_029
    aliased = " ".join(f'e{n}: conversationEventText(id: "{e}")' for n, e in enumerate(events))
    assert "VALIDATION" in codes(writer.gql(f"query {{ {aliased} }}"))  # 6 x 0.19 MB
    summary = writer.data(SUMMARIZE, {"t": thread["id"]})["summarizeThread"]["summary"]
    assert "Open questions: Address" in summary["summaryShort"]
    assert httpx.get(f"{budget_url}/healthz").status_code == 200
