"""The parts of get_context that give it seed 002's shape (conversation_history, agent_patterns,
workspace_context {brand_voice, icps, preferences}, relevant_content): the candidates read for
them, and the shape built from what the token budget kept.

Conversation history is the session's entries (already a section of the context) and, with a
thread, the thread's last events, as messages oldest first. The workspace context is the
client's typed workspace memories (highest priority first; one brand voice), and a reference to
the client's BrandKit (its current version, outside the budget). Relevant content is what
search finds among every searchable type but memory records (those are relevant_memories) and
workspace memories (packed above).
"""

from __future__ import annotations

from typing import Any

from app.domain.kernel.errors import NotFound
from app.domain.kernel.field_rules import decoded
from app.domain.kernel.ids import check_id
from app.graph.executor import GraphExecutor
from app.graph.fragments import record_projection
from app.graph.values import plain
from app.model.enums import ConstraintKind, EventDirection, WorkspaceMemoryType
from app.retrieval.budget import estimate_tokens

W = WorkspaceMemoryType
# The workspace context's parts: the memory type, and how many of it (None: `limit`).
WORKSPACE_PARTS = {"brand_voice": (W.BRAND_VOICE, 1), "icps": (W.ICP, None)}
WORKSPACE_PARTS |= {"preferences": (W.PREFERENCE, None)}
# Search hits of these labels are packed elsewhere (relevant_memories, workspace).
NOT_CONTENT = frozenset({"MemoryRecord", "WorkspaceMemory"})
CANDIDATES = f"""
OPTIONAL MATCH (t:ConversationThread {{id: $thread_id, client_id: $client_id}})
RETURN t IS NOT NULL AS thread_found,
  COLLECT {{
    MATCH (e:ConversationEvent {{thread_id: $thread_id}}) WHERE e.client_id = $client_id
    WITH e ORDER BY e.sequence DESC LIMIT $limit
    RETURN {record_projection("e")}
  }} AS events,
  COLLECT {{
    UNWIND $workspace_parts AS part
    CALL (part) {{
      MATCH (w:WorkspaceMemory {{client_id: $client_id, memory_type: part.type}})
      WITH w ORDER BY w.priority DESC, w.updated_at DESC, w.id LIMIT $limit
      WITH collect(w)[..part.limit] AS kept
      UNWIND kept AS w
      RETURN w
    }}
    RETURN {record_projection("w")}
  }} AS workspace,
  COLLECT {{
    MATCH (d:ConstraintDocument {{client_id: $client_id, kind: $brandkit}})
    MATCH (v:ConstraintVersion {{id: d.current_version_id}}) WHERE v.client_id = $client_id
    RETURN v {{.*}}
  }} AS brand_kit
"""


def check_thread(value: Any) -> str | None:
    return None if value is None else check_id(str(value), field="thread_id")


async def candidates(graph: GraphExecutor, scope: dict[str, Any]) -> dict[str, Any]:
    """The thread's last events (NOT_FOUND for a thread the caller does not have), the
    workspace memories of each part, and the BrandKit's current version."""
    parts = [
        {"type": kind.value, "limit": count or scope["limit"]}
        for kind, count in WORKSPACE_PARTS.values()
    ]
    params = {
        "client_id": scope["client_id"],
        "thread_id": scope["thread_id"],
        "limit": scope["limit"],
        "workspace_parts": parts,
        "brandkit": ConstraintKind.BRANDKIT.value,
    }
    row = plain((await graph.read(CANDIDATES, params))[0])
    if scope["thread_id"] is not None and not row["thread_found"]:
        raise NotFound(f"no thread with id {scope['thread_id']}", id=scope["thread_id"])
    return row


def entry(record: dict[str, Any], section: str, hit: Any = None) -> dict[str, Any]:
    """A packable entry of any record: its tokens are those of its own fields."""
    return {
        "record": record,
        "section": section,
        "tokens": estimate_tokens(record),
        "score": None if hit is None else hit.score,
        "why": [] if hit is None else list(hit.why),
        "hit": hit,
    }


def seed_sections(row: dict[str, Any], content_hits: list[Any]) -> dict[str, list[Any]]:
    """The context's new candidate sections: thread events (newest first), workspace
    memories (by part), relevant content (best first)."""
    events = [entry(decoded(e, ("metadata",)), "conversation") for e in row["events"]]
    workspace = [entry(decoded(w, ("value", "metadata")), "workspace") for w in row["workspace"]]
    content = [entry(h.record, "content", h) for h in content_hits]
    return {"conversation_events": events, "workspace_memories": workspace, "content": content}


def content_hits(hits: list[Any], limit: int) -> list[Any]:
    return [hit for hit in hits if hit.record_type not in NOT_CONTENT][:limit]


def _message(record: dict[str, Any]) -> dict[str, Any]:
    if "direction" in record:  # a thread event
        outbound = record.get("direction") == EventDirection.OUTBOUND.value
        role, speaker = ("agent" if outbound else "user"), None
    else:
        speaker = record.get("source_agent")
        role = "agent" if speaker in (None, record.get("agent")) else "user"
    return {
        "record_id": record["id"],
        "role": role,
        "speaker": speaker,
        "text": record.get("text"),
        "content": record.get("content") or record.get("metadata"),
        "at": record["created_at"],
    }


def seed_shape(packed: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    """conversation_history (oldest first), workspace and relevant_content from what the
    budget kept."""
    said = [e["record"] for e in packed["session_entries"] + packed["conversation_events"]]
    kept = [e["record"] for e in packed["workspace_memories"]]
    workspace: dict[str, Any] = {
        name: [w for w in kept if w["memory_type"] == kind.value]
        for name, (kind, _) in WORKSPACE_PARTS.items()
    }
    workspace["brand_voice"] = next(iter(workspace["brand_voice"]), None)
    workspace["brand_kit"] = next(iter(row["brand_kit"]), None)
    return {
        "conversation_history": sorted((_message(r) for r in said), key=lambda m: m["at"]),
        "workspace": workspace,
        "relevant_content": [e["hit"] for e in packed["content"]],
    }
