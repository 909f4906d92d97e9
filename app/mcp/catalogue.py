"""The MCP tools: each one GraphQL root field, run in-process with the caller's principal, so a
tool keeps every rule of that field (isolation, validation, idempotency, limits) by construction.

A tool states only what is its own: its name, what it is for (written for a model to read), an
example call, the compact result it selects, and which input-object argument it flattens into
top-level arguments. The arguments' types, descriptions and required-ness come from the GraphQL
schema (app/mcp/operations.py builds the document and the JSON Schema from it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

RECORD = "{ id kind memoryType key text tags priority version subject agent sessionId createdAt }"
HIT_RECORD = """record {
  ... on MemoryRecord { text key kind }
  ... on ConversationEvent { text threadId }
  ... on ConversationThread { summaryShort platform }
  ... on Plan { name summary }
  ... on PlanNode { title summary }
  ... on Asset { title summary }
  ... on AgentEpisode { taskClass outputSummary status }
  ... on Lesson { statement }
  ... on KnowledgeFact { factKey: key statement }
  ... on Persona { name description }
  ... on WorkspaceMemory { workspaceKey: key value }
}"""
ENTRY = "{ record { id key text kind } tokens score why }"
SESSION = "{ id agent subject status sessionType entryCount createdAt endedAt }"
EPISODE = "{ id agentName taskClass trigger status toolCallCount outputSummary createdAt closedAt }"
LINEAGE = """
  constraints { id kind version title }
  prompts { id taskClass provider model }
  approvals { id status reviewerUserId notes }
"""


@dataclass(frozen=True)
class ToolSpec:
    name: str
    root: str  # the GraphQL root field it runs
    purpose: str  # what it does and when to use it, for a model
    example: dict[str, Any]  # the arguments of a typical call
    select: str  # the compact result
    flatten: str | None = None  # the input-object argument whose fields are the tool's own
    budgeted: bool = False  # takes tokenBudget: the result's lists are cut to fit it
    omit: tuple[str, ...] = ()  # arguments of the field a tool does not offer
    # Arguments a model may leave out, where the tool's default differs from GraphQL's.
    defaults: dict[str, Any] = field(default_factory=dict)
    read_only: bool = False


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "remember",
        "remember",
        "Store a memory record (a fact, preference, observation, plan or result) in the "
        "client's memory. With `key` (and the same namespace) a second call replaces the text "
        "and keeps the old one as a version.",
        {
            "text": "Dana prefers short captions",
            "kind": "SEMANTIC",
            "key": "dana.captions",
            "namespace": {"subject": "dana"},
            "tags": ["preference"],
        },
        RECORD,
        flatten="input",
        omit=("expectedVersion",),
    ),
    ToolSpec(
        "recall",
        "recallForAgent",
        "Recall for an agent (the key's agent by default): search its memories, and merge its "
        "recent action results, into one ranked list. Use before acting on a task.",
        {"text": "what does Dana like in captions?", "k": 5},
        "{ agentName memoryCount resultCount items { rank source score why record "
        "{ id key text kind } cycle { id sequence status output } } }",
        flatten="input",
        budgeted=True,
        read_only=True,
    ),
    ToolSpec(
        "search_memory",
        "search",
        "Search the client's records by meaning (VECTOR), words (KEYWORD) or both (HYBRID), "
        "optionally only some record types and with filters (tags, namespacePrefix, "
        "sessionId, createdAfter...). Returns ids, types, scores and a short text of each hit.",
        {
            "text": "caption length",
            "mode": "HYBRID",
            "k": 5,
            "recordTypes": ["MEMORY_RECORD"],
            "filters": {"tags": ["preference"]},
        },
        "{ hits { recordId recordType score why " + HIT_RECORD + " } }",
        flatten="input",
        budgeted=True,
        omit=("anchorId",),
        read_only=True,
    ),
    ToolSpec(
        "forget",
        "forgetMemory",
        "Forget a memory record, by id or by namespace and key. Soft by default (kept as "
        "inactive, restorable by remembering again); hard=true deletes it and its versions.",
        {"id": "5b6f0a7e-1c1d-4b8e-9a55-1f0c2f1e8a10", "hard": False},
        "{ id hard versionsDeleted objectsDeleted }",
    ),
    ToolSpec(
        "get_context",
        "getContext",
        "What an agent should know for a task type: its learned patterns, the session's "
        "conversation history, workspace context (brand voice, ICPs, preferences) and relevant "
        "memories, within tokenBudget. Call at the start of a task.",
        {
            "taskType": "caption",
            "subject": "dana",
            "text": "Instagram caption for a launch",
            "tokenBudget": 1500,
        },
        "{ agentName taskType tokenBudget tokensUsed omitted "
        "patterns { totalTasks successRate patterns { pattern successRate } } "
        "conversationHistory { recordId role speaker text at } "
        "workspace { brandVoice { key value } icps { key value } preferences { key value } } "
        "relevantMemories " + ENTRY + " relevantContent { recordId recordType score } }",
        flatten="input",
        read_only=True,
    ),
    ToolSpec(
        "task_context",
        "context",
        "Everything relevant to a task in the plan graph, within tokenBudget: the plan and its "
        "frozen constraints, related plan nodes, lessons, conversation threads and episodes, "
        "ranked by relevance to `text`.",
        {
            "text": "next week's launch posts",
            "planId": "0b9f6c1e-6a8e-4f27-a1a9-3c8e7d2a9b11",
            "tokenBudget": 2000,
        },
        "{ tokenBudget tokensUsed omitted usedIds plan { id name status summary } "
        "constraints { id brandkitVersionId kbVersionId } "
        "planNodes { id nodeType title status summary score } "
        "lessons { id lessonType statement effectiveConfidence } "
        "threads { id platform status summaryShort } "
        "episodes { id agentName taskClass status outputSummary } }",
        flatten="input",
        read_only=True,
    ),
    ToolSpec(
        "session_start",
        "startSession",
        "Start (or, with the same externalRef, resume) a memory session of an agent with a "
        "subject; returns its id for session_put, session_end and session_rehydrate.",
        {"agent": "writer", "subject": "dana", "externalRef": "call-2026-11-26"},
        "{ created session " + SESSION + " }",
        flatten="input",
    ),
    ToolSpec(
        "session_put",
        "putSessionEntry",
        "Append an entry (a message, an observation) to a memory session, on a timeline "
        "('main' by default).",
        {
            "sessionId": "7d1e2c3b-0a4f-4e5d-8c6b-9a8f7e6d5c4b",
            "text": "Dana: keep it short",
            "speaker": "dana",
        },
        RECORD,
        flatten="input",
    ),
    ToolSpec(
        "session_end",
        "endSession",
        "End a memory session with a summary, and store the facts you extracted from it as "
        "long-term memories of the subject (the same fact twice is stored once).",
        {
            "id": "7d1e2c3b-0a4f-4e5d-8c6b-9a8f7e6d5c4b",
            "summary": "Agreed on short captions",
            "facts": [{"text": "Dana wants captions under 80 characters", "key": "dana.len"}],
        },
        "{ entriesSummarized session { id status endedAt } summary { id text } "
        "facts { outcome record { id key text } } }",
    ),
    ToolSpec(
        "session_rehydrate",
        "rehydrateSession",
        "Restore a session into context: its summary only, or its entries too (FULL, newest "
        "`limit`).",
        {"id": "7d1e2c3b-0a4f-4e5d-8c6b-9a8f7e6d5c4b", "mode": "FULL", "limit": 20},
        "{ mode totalEntries truncated session " + SESSION + " summary { id text } "
        "entries { id text timeline createdAt } }",
        budgeted=True,
        defaults={"limit": 50},
        read_only=True,
    ),
    ToolSpec(
        "episode_start",
        "startEpisode",
        "Start an episode: one run of an agent on a task (taskClass), with what triggered it; "
        "returns its id for episode_append_tool_calls and episode_close.",
        {"taskClass": "caption_writing", "trigger": "HUMAN_REQUEST"},
        EPISODE,
        flatten="input",
    ),
    ToolSpec(
        "episode_append_tool_calls",
        "appendToolCalls",
        "Append tool calls (JSON objects, e.g. {tool, args, result}) to an open episode's log.",
        {
            "id": "3c2b1a09-8f7e-4d6c-b5a4-938271605f4e",
            "entries": [{"tool": "search", "args": {"q": "captions"}, "ok": True}],
        },
        EPISODE,
    ),
    ToolSpec(
        "episode_close",
        "closeEpisode",
        "Close an episode with its outcome (SUCCESS, FAILED, ABORTED, ESCALATED), a summary "
        "and the decisions taken.",
        {
            "id": "3c2b1a09-8f7e-4d6c-b5a4-938271605f4e",
            "status": "SUCCESS",
            "outputSummary": "Wrote 3 captions",
            "decisions": [{"chose": "short"}],
        },
        EPISODE,
        flatten="input",
    ),
    ToolSpec(
        "record_cycle",
        "recordCycle",
        "Record one think-act cycle of an agent: its thoughts, the tool call or plan it "
        "proposes, and the memory records it produced (memoryIds).",
        {
            "thoughts": "Dana wants short captions",
            "toolCall": {"tool": "write_caption"},
            "memoryIds": [],
        },
        "{ id agentName sequence status thoughts toolCall createdAt }",
        flatten="input",
    ),
    ToolSpec(
        "learn_from_feedback",
        "learnFromFeedback",
        "Keep feedback on a finished task (success, rating, the patterns used); the agent's "
        "learned patterns for that task type are updated at once.",
        {"taskType": "caption", "success": True, "rating": 4.5, "patterns": ["short", "emoji"]},
        "{ event { id success rating } patterns { taskType totalTasks successRate "
        "patterns { pattern count successRate } } }",
        flatten="input",
    ),
    ToolSpec(
        "link_records",
        "linkRecords",
        "Link two records of the client with a typed relation (SUPPORTS, CONTRADICTS, CAUSED, "
        "DERIVED_FROM, VALIDATES, REPLY_TO, REFERENCE, FOLLOW_UP), with a note.",
        {
            "fromId": "5b6f0a7e-1c1d-4b8e-9a55-1f0c2f1e8a10",
            "toId": "0e1d2c3b-4a59-4687-9a8b-7c6d5e4f3a2b",
            "relation": "SUPPORTS",
        },
        "{ linkId relation note from { id label title } to { id label title } }",
    ),
    ToolSpec(
        "trace",
        "trace",
        "Where a published asset variant came from and why it was published: its asset, "
        "blueprint, plan, the constraint versions in force, prompts, approvals and publish "
        "runs, in one answer.",
        {"variantId": "9e8d7c6b-5a49-4837-8261-5f4e3d2c1b0a"},
        "{ variant { id platform format status } asset { id title status } "
        "blueprint { id title } plan { id name status } snapshot { id } "
        + LINEAGE
        + " packages { id status scheduledAt } runs { run { id status } evidence { id } } }",
        budgeted=True,
        read_only=True,
    ),
    ToolSpec(
        "upstream",
        "upstream",
        "Everything upstream of any record (variant, asset, plan node, package...): the "
        "variants, assets, blueprints, plans, constraints, prompts and approvals it derives "
        "from.",
        {"id": "9e8d7c6b-5a49-4837-8261-5f4e3d2c1b0a"},
        "{ startId startLabel variants { id platform status } assets { id title } "
        "blueprints { id title } plans { id name } snapshots { id } " + LINEAGE + " }",
        budgeted=True,
        read_only=True,
    ),
    ToolSpec(
        "thread_create",
        "createConversationThread",
        "Open (or find, by platform and externalThreadRef) a conversation thread to append "
        "events to.",
        {"platform": "INSTAGRAM", "threadType": "DM", "externalThreadRef": "ig-dm-4411"},
        "{ created thread { id platform threadType status eventCount } }",
        flatten="input",
    ),
    ToolSpec(
        "append_conversation_event",
        "appendConversationEvent",
        "Append an event (a DM, comment, reply, reaction) to a conversation thread; the same "
        "externalRef twice is stored once (duplicate=true).",
        {
            "threadId": "1f2e3d4c-5b6a-4798-8a7b-6c5d4e3f2a1b",
            "direction": "INBOUND",
            "eventType": "DM_MESSAGE",
            "externalRef": "msg-1",
            "text": "Love the new post!",
        },
        "{ duplicate event { id threadId sequence direction eventType text createdAt } }",
        flatten="input",
        omit=("media",),
    ),
    ToolSpec(
        "thread_summary",
        "writeThreadSummary",
        "Store your summary of a conversation thread (short, optional long, open questions); "
        "it becomes the thread's current summary.",
        {
            "threadId": "1f2e3d4c-5b6a-4798-8a7b-6c5d4e3f2a1b",
            "summaryShort": "Fan asks about the launch date",
            "openQuestions": ["launch date?"],
        },
        "{ summary { id version summaryShort eventsCovered } "
        "thread { id needsSummary summaryVersion } }",
    ),
)

# MCP resources (app/mcp/resources.py): a record by URI agentmem://{kind}/{id}.
READS: dict[str, ToolSpec] = {
    "memory": ToolSpec(
        "memory",
        "recallMemory",
        "A memory record: its text, content, tags and namespace.",
        {"id": "5b6f0a7e-1c1d-4b8e-9a55-1f0c2f1e8a10"},
        RECORD[:-1] + " content contentUri }",
        omit=("namespace", "key"),
    ),
    "session": ToolSpec(
        "session",
        "rehydrateSession",
        "A memory session and its summary.",
        {"id": "7d1e2c3b-0a4f-4e5d-8c6b-9a8f7e6d5c4b"},
        "{ totalEntries session " + SESSION + " summary { id text } }",
        defaults={"limit": 1},
    ),
    "trace": ToolSpec(
        "trace",
        "trace",
        "The lineage of a published asset variant (as the trace tool answers it).",
        {"variantId": "9e8d7c6b-5a49-4837-8261-5f4e3d2c1b0a"},
        "{ variant { id platform status } asset { id title } plan { id name } "
        "constraints { id kind version } approvals { id status } }",
    ),
}
READ_ARGUMENT = {"memory": "id", "session": "id", "trace": "variantId"}
