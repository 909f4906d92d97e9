"""get_context (seed 002) for an agent and a task: its patterns, recent session entries (and a
thread's last events), workspace context and semantically relevant memories and content, packed
into a token budget, with seed 002's shape besides (context_seed.py).

What a context may show is what the agent may see for this subject and session: records of the
agent or of no agent, about the subject or no subject, of the session or of none. The patterns
are packed first, then session entries (newest first), workspace context (highest priority
first), then search hits (best first); a record already packed is not packed again. The new
sections of context_seed.py take their turns as below (`_pack`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.domain.agents import context_seed, learning_rules
from app.domain.agents.repository import agent_name_for
from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.field_rules import decoded
from app.domain.kernel.principal import Principal
from app.domain.memory import LIVE, RECORD_MAP, audited, check_segment
from app.graph.executor import GraphExecutor
from app.graph.fragments import live
from app.graph.values import plain
from app.model.enums import MemoryKind
from app.retrieval.budget import MAX_BUDGET, TokenBudget, estimate_tokens
from app.retrieval.embedder import Embedder
from app.retrieval.search import SearchMode, SearchRequest, search

MAX_SECTION = 50
WORKSPACE_KINDS = (MemoryKind.SEMANTIC.value, MemoryKind.PROCEDURAL.value)
VISIBLE = (
    "(r.agent IS NULL OR r.agent = $agent_name) AND (r.subject IS NULL OR r.subject = $subject)"
)
# The workspace section reads index memory_record_workspace_order in order and stops at the limit
# (a client's 100k records were sorted in full before: 1-2 s). Neo4j backs the ORDER BY by the
# index only when it names every key of the index, the equal leading ones included, in one
# direction, and when no OR splits the seek: hence the liveness test without one, the
# IS NOT NULL conditions (index entries need every key) and the id as the last key.
SEEKABLE_LIVE = live("r", ordered_seek=True)
CANDIDATES = f"""
RETURN
  COLLECT {{
    MATCH (r:MemoryRecord {{client_id: $client_id, session_id: $session_id}})
    WHERE {LIVE} AND {VISIBLE}
    WITH r ORDER BY r.created_at DESC, r.id DESC LIMIT $limit
    RETURN {RECORD_MAP}
  }} AS session,
  COLLECT {{
    UNWIND $kinds AS kind
    CALL (kind) {{
      MATCH (r:MemoryRecord {{client_id: $client_id, kind: kind}})
      WHERE r.priority IS NOT NULL AND r.updated_at IS NOT NULL AND r.id IS NOT NULL
        AND r.session_id IS NULL AND {SEEKABLE_LIVE}
        AND {VISIBLE}
      WITH r ORDER BY r.client_id DESC, r.kind DESC, r.priority DESC, r.updated_at DESC,
        r.id DESC LIMIT $limit
      RETURN r
    }}
    WITH r ORDER BY r.priority DESC, r.updated_at DESC, r.id DESC LIMIT $limit
    RETURN {RECORD_MAP}
  }} AS workspace,
  COLLECT {{
    MATCH (p:AgentPerformance {{client_id: $client_id, agent_name: $agent_name,
                                task_type: $task_type}})
    RETURN p {{.*}}
  }} AS performances
"""


def check_request(fields: dict[str, Any]) -> dict[str, Any]:
    budget, limit = fields.get("token_budget"), fields.get("limit")
    if isinstance(budget, bool) or not isinstance(budget, int) or not 1 <= budget <= MAX_BUDGET:
        raise ValidationFailed(f"tokenBudget must be 1-{MAX_BUDGET}", field="token_budget")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_SECTION:
        raise ValidationFailed(f"limit must be 1-{MAX_SECTION}", field="limit")
    text = fields.get("text")
    if text is not None and (not isinstance(text, str) or not text.strip()):
        raise ValidationFailed("text must not be blank", field="text")
    segments = {name: fields.get(name) for name in ("session_id", "subject")}
    semantic = fields.get("include_semantic", True)
    if not isinstance(semantic, bool):
        raise ValidationFailed("include_semantic must be true or false", field="include_semantic")
    return {
        "task_type": learning_rules.check_task_type(fields.get("task_type")),
        "token_budget": budget,
        "limit": limit,
        "text": text,
        "thread_id": context_seed.check_thread(fields.get("thread_id")),
        "include_semantic": semantic,
    } | {k: None if v is None else check_segment(v, field=k) for k, v in segments.items()}


def _visible(record: dict[str, Any], scope: dict[str, Any]) -> bool:
    return all(
        record.get(name) in (None, scope[key])
        for name, key in (
            ("agent", "agent_name"),
            ("subject", "subject"),
            ("session_id", "session_id"),
        )
    )


def _entry(record: dict[str, Any], section: str, hit: Any = None) -> dict[str, Any]:
    record = decoded(record, ("content",))
    return {
        "record": record,
        "section": section,
        "tokens": estimate_tokens(record.get("text"), record.get("content")),
        "score": None if hit is None else hit.score,
        "why": [] if hit is None else list(hit.why),
    }


async def get_context(
    graph: GraphExecutor,
    embedder: Embedder,
    *,
    principal: Principal,
    agent_name: str | None,
    fields: dict[str, Any],
) -> dict[str, Any]:
    request = check_request(fields)
    scope = request | {
        "agent_name": agent_name_for(principal, agent_name),
        "client_id": principal.client_id,
        "kinds": list(WORKSPACE_KINDS),
        "now": datetime.now(UTC),
    }
    with audited(principal, "context") as audit:
        row = plain((await graph.read(CANDIDATES, scope))[0])
        extra = await context_seed.candidates(graph, scope)
        hits, content = await _searched(graph, embedder, principal, request)
        relevant = [_entry(h.record, "relevant", h) for h in hits if _visible(h.record, scope)]
        extra |= {"content_hits": context_seed.content_hits(content, request["limit"])}
        packed = _pack(scope, row, relevant[: request["limit"]], extra)
        audit.detail = f"{len(packed['used_ids'])} records in context"
    return packed


async def _searched(
    graph: GraphExecutor, embedder: Embedder, principal: Principal, request: dict[str, Any]
) -> tuple[list[Any], list[Any]]:
    """Memory records (hybrid search), then semantically similar records of every searchable
    type (relevant content: one vector query; the text's vector is cached by then), found for
    the task; none when the caller left semantic context out."""
    if not request["include_semantic"]:
        return [], []
    text, k = request["text"] or request["task_type"], min(2 * request["limit"], 100)
    found = []
    for mode, types in ((SearchMode.HYBRID, ("MemoryRecord",)), (SearchMode.VECTOR, ())):
        ask = SearchRequest(text=text, mode=mode, record_types=types, k=k)
        found.append(await search(graph, embedder, principal=principal, request=ask))
    return found[0], found[1]


def _pack(
    scope: dict[str, Any],
    row: dict[str, Any],
    relevant: list[dict[str, Any]],
    extra: dict[str, Any],
) -> dict[str, Any]:
    patterns = learning_rules.agent_patterns(
        row["performances"], agent_name=scope["agent_name"], task_type=scope["task_type"]
    )
    budget = TokenBudget(scope["token_budget"])
    patterns_fit = budget.take(estimate_tokens(patterns))
    seen: set[str] = set()
    sections: dict[str, list[dict[str, Any]]] = {}
    seed = context_seed.seed_sections(extra, extra["content_hits"])
    candidates = {
        "session_entries": [_entry(r, "session") for r in row["session"]],
        "conversation_events": seed["conversation_events"],
        "workspace_memories": seed["workspace_memories"],
        "workspace_context": [_entry(r, "workspace") for r in row["workspace"]],
        "relevant_memories": relevant,
        "content": seed["content"],
    }
    for name, entries in candidates.items():
        fresh = [e for e in entries if e["record"]["id"] not in seen]
        sections[name] = budget.pack(fresh, lambda e: int(e["tokens"]))
        seen.update(e["record"]["id"] for e in sections[name])
    return (
        sections
        | context_seed.seed_shape(sections, extra)
        | {
            "agent_name": scope["agent_name"],
            "task_type": scope["task_type"],
            "session_id": scope["session_id"],
            "subject": scope["subject"],
            "patterns": patterns,
            "patterns_included": patterns_fit,
            "token_budget": budget.limit,
            "tokens_used": budget.used,
            "omitted": budget.omitted,
            "used_ids": [e["record"]["id"] for entries in sections.values() for e in entries],
        }
    )
