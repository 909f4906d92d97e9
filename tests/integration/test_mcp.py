"""The MCP door end to end (issue: agents' door), with the SDK's own client against the real
Neo4j and S3: over streamable HTTP (/mcp of the served app) and over stdio (`agentmem mcp`),
every tool called, the same identity and rules as GraphQL (another client's ids answer as
missing ones, refused arguments write nothing), and the HTTP door's key, size and rate limits."""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.mcp.catalogue import TOOLS
from app.model.enums import Role
from app.settings import Settings
from tests.integration.client_helpers import client_state
from tests.integration.conftest import Caller, new_caller, serve_in_thread
from tests.integration.mcp_flow import every_tool
from tests.integration.mcp_helpers import over_http, over_stdio
from tests.integration.memory_helpers import team
from tests.integration.seed_graph import seed_graph
from tests.integration.test_access_log_fields import MISSING, entries

NAMES = {spec.name for spec in TOOLS}


def test_tools_resources_and_instructions_are_listed(alice: Caller, api_url: str) -> None:
    async def listed() -> tuple[Any, Any, str | None]:
        async with over_http(api_url, alice.key) as tools:
            found = await tools.client.list_tools()
            templates = await tools.client.list_resource_templates()
            return found.tools, templates.resource_templates, tools.client.instructions

    tools, templates, instructions = asyncio.run(listed())
    assert {tool.name for tool in tools} == NAMES
    for tool in tools:
        assert "Example arguments: {" in (tool.description or ""), tool.name
        assert tool.input_schema["type"] == "object" and tool.input_schema["examples"]
        assert tool.input_schema["additionalProperties"] is False
    read_only = {tool.name for tool in tools if tool.annotations.read_only_hint}
    assert {"search_memory", "recall", "trace", "get_context"} <= read_only
    assert "remember" not in read_only
    assert {t.uri_template for t in templates} == {
        "agentmem://memory/{id}",
        "agentmem://session/{id}",
        "agentmem://trace/{variantId}",
    }
    assert instructions and "get_context" in instructions and "trace(variantId)" in instructions


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_every_tool_over_each_transport(
    transport: str, alice: Caller, api_url: str, neo4j_session: Any
) -> None:
    lineage = seed_graph(neo4j_session, alice.client_id)

    async def run() -> tuple[set[str], set[str], dict[str, str], str]:
        opened = over_http(api_url, alice.key) if transport == "http" else over_stdio(alice.key)
        async with opened as tools:
            listed = {tool.name for tool in (await tools.client.list_tools()).tools}
            ids = await every_tool(tools, lineage)
            read = await tools.client.read_resource(f"agentmem://memory/{ids['memory']}")
            return listed, tools.called, ids, read.contents[0].text

    listed, called, ids, text = asyncio.run(run())
    assert listed == called == NAMES
    assert ids["memory"] in text and "Dana prefers short captions" in text
    # What the tools wrote is what GraphQL reads.
    record = alice.data(
        "query($id: ID!) { recallMemory(id: $id) { text key } }", {"id": ids["memory"]}
    )
    assert record["recallMemory"] == {"text": "Dana prefers short captions", "key": "dana.len"}


# Each tool that takes an id, with the arguments it needs besides it.
BY_ID: list[tuple[str, str, str, dict[str, Any]]] = [
    ("forget", "memory", "id", {}),
    ("link_records", "memory", "fromId", {"toId": "memory", "relation": "SUPPORTS"}),
    ("session_put", "session", "sessionId", {"text": "hello"}),
    ("session_end", "session", "id", {"summary": "done"}),
    ("session_rehydrate", "session", "id", {}),
    ("episode_append_tool_calls", "episode", "id", {"entries": [{"tool": "x"}]}),
    ("episode_close", "episode", "id", {"status": "SUCCESS"}),
    ("record_cycle", "memory", "memoryIds", {"thoughts": "t"}),
    ("trace", "variant", "variantId", {}),
    ("upstream", "variant", "id", {}),
    ("task_context", "variant", "planId", {"text": "launch"}),
    (
        "append_conversation_event",
        "thread",
        "threadId",
        {"direction": "INBOUND", "eventType": "DM_MESSAGE", "externalRef": "x1", "text": "hi"},
    ),
    ("thread_summary", "thread", "threadId", {"summaryShort": "s"}),
]


def _arguments(
    argument: str, value: str, rest: dict[str, Any], ids: dict[str, str]
) -> dict[str, Any]:
    given = {
        k: ids.get(v, v) if isinstance(v, str) and k.endswith("Id") else v for k, v in rest.items()
    }
    return {**given, argument: [value] if argument == "memoryIds" else value}


def test_another_clients_ids_answer_exactly_as_missing_ones(
    alice: Caller, bob: Caller, api_url: str, neo4j_session: Any
) -> None:
    lineage = seed_graph(neo4j_session, alice.client_id)
    mine = seed_graph(neo4j_session, bob.client_id)

    async def run() -> None:
        async with over_http(api_url, alice.key) as tools:
            ids = await every_tool(tools, lineage)
        before = client_state(neo4j_session, alice.client_id)
        async with over_http(api_url, bob.key) as tools:
            bobs = {
                "memory": (await tools.ok("remember", text="Bob's note", kind="SEMANTIC"))["id"]
            }
            bobs["variant"] = mine["variant"]
            for name, kind, argument, rest in BY_ID:
                foreign = await tools.call(name, **_arguments(argument, ids[kind], rest, bobs))
                missing_id = str(uuid.uuid4())
                missing = await tools.call(name, **_arguments(argument, missing_id, rest, bobs))
                assert foreign.error and missing.error, (name, foreign.value, missing.value)
                assert foreign.code == missing.code == "NOT_FOUND", (name, foreign.value)
                assert foreign.message.replace(ids[kind], "<id>") == missing.message.replace(
                    missing_id, "<id>"
                ), name
            hits = await tools.ok("search_memory", text="Dana prefers short captions", k=10)
            assert ids["memory"] not in str(hits)
            recalled = await tools.call("recall", text="Dana prefers short captions", k=10)
            assert ids["memory"] not in str(recalled.value)
            for uri in (
                f"agentmem://memory/{ids['memory']}",
                f"agentmem://session/{ids['session']}",
            ):
                with pytest.raises(Exception, match="NOT_FOUND"):
                    await tools.client.read_resource(uri)
        assert client_state(neo4j_session, alice.client_id) == before

    asyncio.run(run())


BAD_CALLS: list[tuple[str, dict[str, Any], str, str]] = [
    ("remember", {"text": 5, "kind": "SEMANTIC"}, "VALIDATION", "text"),
    ("remember", {"text": "x", "kind": "SEMANTIC", "colour": "red"}, "VALIDATION", "arguments"),
    ("remember", {"text": "x", "kind": "FEELING"}, "VALIDATION", "kind"),
    ("remember", {"text": "x"}, "VALIDATION", "kind"),  # neither kind nor memoryType
    (
        "link_records",
        {"fromId": "not-a-uuid", "toId": "x", "relation": "SUPPORTS"},
        "VALIDATION",
        "",
    ),
    ("session_put", {"text": "no session"}, "VALIDATION", "arguments"),
    ("search_memory", {"text": "x", "k": 0}, "VALIDATION", ""),
    ("episode_start", {"taskClass": "t", "trigger": "WHENEVER"}, "VALIDATION", "trigger"),
    ("no_such_tool", {}, "NOT_FOUND", ""),
]


def test_bad_arguments_are_tool_errors_and_write_nothing(
    alice: Caller, api_url: str, neo4j_session: Any
) -> None:
    before = client_state(neo4j_session, alice.client_id)

    async def run() -> None:
        async with over_http(api_url, alice.key) as tools:
            for name, arguments, code, field in BAD_CALLS:
                answer = await tools.call(name, **arguments)
                assert answer.error and answer.code == code, (name, answer.value)
                assert answer.message, name
                if field:
                    assert answer.value["error"].get("field", "").startswith(field), answer.value

    asyncio.run(run())
    assert client_state(neo4j_session, alice.client_id) == before


REQUEST = "mcp-call-7"


def test_tool_calls_are_in_the_access_log(settings: Settings, api_url: str) -> None:
    callers = team(settings, api_url, Role.AGENT, Role.ADMIN)
    agent, admin = callers[Role.AGENT], callers[Role.ADMIN]

    async def run() -> str:
        async with over_http(api_url, agent.key, x_request_id=REQUEST) as tools:
            made = await tools.ok("remember", text="logged through MCP", kind="SEMANTIC")
            assert (await tools.call("forget", id=MISSING)).code == "NOT_FOUND"
            return str(made["id"])

    made = asyncio.run(run())
    deadline = time.monotonic() + 10
    while len(calls := {e["operation"]: e for e in entries(admin) if "mcp." in e["operation"]}) < 2:
        assert time.monotonic() < deadline, calls
        time.sleep(0.1)
    assert set(calls) == {"mcp.remember", "mcp.forget"}
    remembered, refused = calls["mcp.remember"], calls["mcp.forget"]
    assert (remembered["outcome"], refused["outcome"]) == ("OK", "NOT_FOUND")
    assert refused["errorMessage"].startswith("NOT_FOUND: ") and MISSING in refused["errorMessage"]
    assert remembered["requestData"] == {
        "operationName": "mcp.remember",
        "variables": {"text": "logged through MCP", "kind": "SEMANTIC"},
    }
    assert refused["clientAddress"] == "127.0.0.1"
    assert remembered["requestId"] == refused["requestId"] == REQUEST  # the edge's, sanitised
    # The memory write the tool made is logged as a GraphQL one is, with the call's facts.
    [create] = [e for e in entries(admin, operations=["create"]) if e["targetId"] == made]
    assert create["requestData"] == remembered["requestData"]


def test_the_http_door_refuses_a_missing_key_and_a_body_too_large(
    api_url: str, settings: Settings
) -> None:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream"}
    answer = httpx.post(f"{api_url}/mcp", json=call, headers=headers, timeout=30)
    assert answer.status_code == 401 and answer.headers["www-authenticate"] == "Bearer"
    assert answer.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    wrong = httpx.post(
        f"{api_url}/mcp", json=call, headers={**headers, "Authorization": "Bearer am_x"}, timeout=30
    )
    assert wrong.status_code == 401
    big = b"x" * (settings.max_body_bytes + 1)
    too_large = httpx.post(
        f"{api_url}/mcp",
        content=big,
        headers={**headers, "Authorization": "Bearer am_x"},
        timeout=30,
    )
    assert too_large.status_code == 413


@pytest.fixture(scope="module")
def limited_url(settings: Settings) -> Iterator[str]:
    limits = {**settings.key_rate_limits, Role.AGENT: "3/minute"}
    limited = settings.model_copy(
        update={"key_rate_limits": limits, "embedding_worker_in_process": False}
    )
    yield from serve_in_thread(limited)


def test_tool_calls_count_against_the_keys_rate_limit(settings: Settings, limited_url: str) -> None:
    caller = new_caller(settings, limited_url)

    async def run() -> list[Any]:
        async with over_http(limited_url, caller.key) as tools:
            return [await tools.call("forget", id=str(uuid.uuid4())) for _ in range(4)]

    answers = asyncio.run(run())
    assert [a.code for a in answers[:3]] == ["NOT_FOUND"] * 3
    assert answers[3].code == "RATE_LIMITED"
    assert answers[3].value["error"]["retryAfterSeconds"] >= 1
    assert re.search(r"retry in \d+ s", answers[3].message)
