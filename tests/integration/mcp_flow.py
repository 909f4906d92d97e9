"""Every MCP tool called once as an agent would in one task, checking what each answers; run over
each transport. Returns the ids it made (another client's tests try them)."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from tests.integration.mcp_helpers import Tools

INDEXED_WITHIN_S = 60


async def searched(tools: Tools, text: str, wanted: str) -> dict[str, Any]:
    """search_memory's answer once `wanted` is among its hits (the worker indexes new records
    in the background)."""
    deadline = time.monotonic() + INDEXED_WITHIN_S
    while True:
        found = await tools.ok("search_memory", text=text, k=5, recordTypes=["MEMORY_RECORD"])
        if wanted in [hit["recordId"] for hit in found.get("hits", [])]:
            return found
        assert time.monotonic() < deadline, f"{wanted} was never found by search_memory"
        await asyncio.sleep(0.3)


async def every_tool(tools: Tools, lineage: dict[str, str]) -> dict[str, str]:
    fact = await tools.ok(
        "remember",
        text="Dana prefers short captions",
        kind="SEMANTIC",
        key="dana.len",
        namespace={"subject": "dana", "agent": "tester"},
        tags=["preference"],
    )
    assert fact["text"] == "Dana prefers short captions" and fact["key"] == "dana.len"
    seen = await tools.ok("remember", text="Captions with emoji get replies", kind="OBSERVATION")
    link = await tools.ok(
        "link_records", fromId=seen["id"], toId=fact["id"], relation="SUPPORTS", note="twice"
    )
    assert (link["from"]["id"], link["to"]["id"], link["relation"]) == (
        seen["id"],
        fact["id"],
        "SUPPORTS",
    )
    hits = await searched(tools, "short captions Dana", fact["id"])
    top = hits["hits"][0]
    assert top["recordType"] == "MemoryRecord" and "text" in top["record"] and top["why"]

    episode = await tools.ok("episode_start", taskClass="caption_writing", trigger="HUMAN_REQUEST")
    appended = await tools.ok(
        "episode_append_tool_calls", id=episode["id"], entries=[{"tool": "search", "ok": True}]
    )
    assert appended["toolCallCount"] == 1 and episode["status"] == "RUNNING"
    cycle = await tools.ok(
        "record_cycle", thoughts="Dana wants short captions", memoryIds=[fact["id"]]
    )
    assert cycle["status"] == "PROPOSED" and cycle["sequence"] >= 1
    closed = await tools.ok(
        "episode_close", id=episode["id"], status="SUCCESS", outputSummary="Wrote 3 captions"
    )
    assert closed["status"] == "SUCCESS" and closed["outputSummary"] == "Wrote 3 captions"
    learned = await tools.ok(
        "learn_from_feedback", taskType="caption", success=True, rating=4.5, patterns=["short"]
    )
    assert learned["patterns"]["totalTasks"] == 1 and learned["event"]["success"] is True

    recalled = await tools.ok("recall", text="what does Dana like in captions", k=5)
    assert fact["id"] in [item["record"]["id"] for item in recalled["items"] if "record" in item]
    context = await tools.ok(
        "get_context", taskType="caption", subject="dana", text="caption", tokenBudget=1500
    )
    assert context["patterns"]["totalTasks"] == 1 and context["tokensUsed"] <= 1500

    session = (await tools.ok("session_start", agent="tester", subject="dana"))["session"]
    entry = await tools.ok(
        "session_put", sessionId=session["id"], text="Dana: keep it short", speaker="dana"
    )
    assert entry["sessionId"] == session["id"]
    ended = await tools.ok(
        "session_end",
        id=session["id"],
        summary="Agreed on short captions",
        facts=[{"text": "Dana wants captions under 80 characters", "key": "dana.under80"}],
    )
    assert ended["session"]["status"] == "FLUSHED" and ended["facts"][0]["outcome"] == "CREATED"
    rehydrated = await tools.ok("session_rehydrate", id=session["id"], mode="FULL", limit=10)
    assert rehydrated["summary"]["text"] == "Agreed on short captions"
    assert [e["id"] for e in rehydrated["entries"]] == [entry["id"]]

    thread = (
        await tools.ok(
            "thread_create",
            platform="INSTAGRAM",
            threadType="DM",
            externalThreadRef=f"ig-{uuid.uuid4().hex[:8]}",
        )
    )["thread"]
    message = {"threadId": thread["id"], "direction": "INBOUND", "eventType": "DM_MESSAGE"}
    event = await tools.ok("append_conversation_event", **message, externalRef="m1", text="Hi!")
    again = await tools.ok("append_conversation_event", **message, externalRef="m1", text="Hi!")
    assert again["duplicate"] is True and again["event"]["id"] == event["event"]["id"]
    summary = await tools.ok("thread_summary", threadId=thread["id"], summaryShort="Fan says hi")
    assert summary["summary"]["summaryShort"] == "Fan says hi"

    task = await tools.ok("task_context", text="launch posts", planId=lineage["plan"])
    assert task["plan"]["id"] == lineage["plan"]
    trace = await tools.ok("trace", variantId=lineage["variant"])
    assert trace["asset"]["id"] == lineage["asset"] and trace["plan"]["id"] == lineage["plan"]
    upstream = await tools.ok("upstream", id=lineage["variant"])
    assert lineage["plan"] in [plan["id"] for plan in upstream["plans"]]
    small = await tools.ok("trace", variantId=lineage["variant"], tokenBudget=60)
    assert small["truncated"] is True and small["omittedItems"] >= 1

    forgot = await tools.ok("forget", id=seen["id"])
    assert forgot == {"id": seen["id"], "hard": False, "versionsDeleted": 0, "objectsDeleted": 0}
    return {
        "memory": fact["id"],
        "episode": episode["id"],
        "session": session["id"],
        "thread": thread["id"],
        "variant": lineage["variant"],
    }
