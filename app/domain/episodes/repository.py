"""AgentEpisode repository (seed 000, 7): start, link what was read and written, append tool
calls, close. Each mutation is one transaction that write-locks the episode first; a closed
episode is immutable (CONFLICT).

The tool-call log while an episode runs: each append uploads its JSON lines as one pending
object (client/{c}/episodes/{e}/pending/{n}.jsonl, n = 1, 2, ...) while the episode is locked,
then counts it on the node. Close, under the same lock, reads the chunks in order, uploads the
whole log (episode, inputs, reads, tool calls, children, writes, decisions, output) as one
JSON-lines object, then points the node at it with its SHA-256. Appends are capped in bytes and
in number (settings), so a close never holds more than that cap in memory.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from app.artifacts.store import ArtifactStore, client_key
from app.domain.agents import acting_agent_name
from app.domain.episodes.rules import (
    MAX_LATENCY_MS,
    check_close,
    check_links,
    check_new_episode,
    check_outcome,
    check_running,
    final_log,
    tool_call_lines,
)
from app.domain.kernel.errors import NotFound, ValidationFailed
from app.domain.kernel.field_rules import decoded
from app.domain.kernel.ids import check_id, new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import OwnedNode, missing
from app.graph.change_feed import note_change
from app.graph.executor import GraphExecutor, Tx
from app.graph.fragments import merge_agent
from app.graph.identifiers import cypher_label
from app.graph.registry import entity
from app.graph.values import plain
from app.model.enums import ChangeAction, EpisodeStatus

JSON_FIELDS = ("input_refs", "retrieval_refs")
JSONL = "application/x-ndjson"
CHUNK_READS = 16
MAX_URL_SECONDS = 7 * 24 * 3600
EPISODE = OwnedNode("AgentEpisode", "episode", what="agent episode")
# The episode's agent: its changes are noted under it (the change feed's parent).
AGENT_ID = "head(COLLECT { MATCH (a:Agent {client_id: $client_id})-[:RAN]->(e) RETURN a.id })"
# The agent is created on first use, at the episode's own creation time.
CREATE_EPISODE = f"""
{merge_agent(agent_name="$props.agent_name", clock="$props.created_at")}
CREATE (a)-[:RAN]->(e:AgentEpisode)
SET e = $props
WITH a, e
CALL (e) {{
  MATCH (p:AgentEpisode {{id: $parent_id, client_id: $client_id}})
  CREATE (p)-[:SPAWNED]->(e)
}}
RETURN e {{.*}} AS episode, a.id AS agent_id
"""
APPEND_CHUNK = f"""
MATCH (e:AgentEpisode {{id: $id, client_id: $client_id}})
SET e.tool_call_appends = $appends,
    e.tool_call_count = coalesce(e.tool_call_count, 0) + $entries,
    e.tool_call_bytes = coalesce(e.tool_call_bytes, 0) + $bytes,
    e.updated_at = $now
RETURN e {{.*}} AS episode, {AGENT_ID} AS agent_id
"""
LOG_CONTEXT = """
MATCH (e:AgentEpisode {id: $id, client_id: $client_id})
RETURN
  COLLECT {
    MATCH (e)-[r:READ|WROTE]->(n {client_id: $client_id})
    WITH r, n ORDER BY r.created_at, n.id, r.role
    RETURN {direction: CASE type(r) WHEN 'READ' THEN 'read' ELSE 'write' END, id: n.id,
            label: head(labels(n)), role: r.role, linked_at: r.created_at}
  } AS links,
  COLLECT {
    MATCH (e)-[:SPAWNED]->(c:AgentEpisode {client_id: $client_id})
    WITH c ORDER BY c.created_at, c.id
    RETURN c.id
  } AS children
"""
CLOSE_EPISODE = f"""
MATCH (e:AgentEpisode {{id: $id, client_id: $client_id}})
SET e += $changes, e.updated_at = $changes.closed_at
RETURN e {{.*}} AS episode, {AGENT_ID} AS agent_id
"""


def _targets(rel_type: str) -> tuple[str, ...]:
    """The labels an episode may READ or WROTE, as declared in the model."""
    declared = entity("AgentEpisode").relationships.values()
    return tuple(sorted({r.target for r in declared if r.rel_type == rel_type and r.outgoing}))


READ_TARGETS, WRITE_TARGETS = _targets("READ"), _targets("WROTE")


def _lookup(labels: tuple[str, ...]) -> str:
    """A subquery finding `link.id` among the caller's records of the given labels."""
    return " UNION ALL ".join(
        f"MATCH (n:{cypher_label(label)} {{id: link.id, client_id: $client_id}}) RETURN n"
        for label in labels
    )


FIND_TARGETS = f"""
CALL () {{ UNWIND $reads AS link CALL (link) {{ {_lookup(READ_TARGETS)} }}
          RETURN collect(link.id) AS reads }}
CALL () {{ UNWIND $writes AS link CALL (link) {{ {_lookup(WRITE_TARGETS)} }}
          RETURN collect(link.id) AS writes }}
RETURN reads, writes
"""
LINK_TARGETS = f"""
MATCH (e:AgentEpisode {{id: $id, client_id: $client_id}})
CALL (e) {{ UNWIND $reads AS link CALL (link) {{ {_lookup(READ_TARGETS)} }}
           MERGE (e)-[r:READ {{role: link.role}}]->(n) ON CREATE SET r.created_at = $now
           RETURN count(r) AS reads }}
CALL (e) {{ UNWIND $writes AS link CALL (link) {{ {_lookup(WRITE_TARGETS)} }}
           MERGE (e)-[r:WROTE {{role: link.role}}]->(n) ON CREATE SET r.created_at = $now
           RETURN count(r) AS writes }}
SET e.updated_at = $now
RETURN e {{.*}} AS episode, {AGENT_ID} AS agent_id
"""


def episode_record(node: Any) -> dict[str, Any]:
    """An episode as the API sees it: plain values, JSON refs decoded."""
    return decoded(dict(plain(node)), JSON_FIELDS)


async def start_episode(
    graph: GraphExecutor,
    *,
    principal: Principal,
    fields: dict[str, Any],
    agent_name: str | None = None,
    parent_episode_id: str | None = None,
) -> dict[str, Any]:
    """A running episode of the agent (the key's agent by default), SPAWNED by a running parent
    episode of the caller's client when one is given."""
    principal.require_writer()
    parent_id = (
        None
        if parent_episode_id is None
        else check_id(parent_episode_id, field="parent_episode_id")
    )
    now = datetime.now(UTC)
    props = check_new_episode(fields) | {
        "id": new_id(),
        "client_id": principal.client_id,
        "agent_name": acting_agent_name(principal, agent_name),
        "status": EpisodeStatus.RUNNING.value,
        "parent_episode_id": parent_id,
        "tool_call_count": 0,
        "tool_call_appends": 0,
        "tool_call_bytes": 0,
        "created_at": now,
        "updated_at": now,
    }
    params = {"client_id": principal.client_id, "props": props, "parent_id": parent_id}

    async def work(tx: Tx) -> dict[str, Any]:
        if parent_id is not None:
            parent = await _locked(tx, parent_id, principal)
            check_running(
                EpisodeStatus(parent["status"]), episode_id=parent_id, action="spawn children"
            )
        rows = await tx.run(CREATE_EPISODE, params | {"agent_id": new_id()})
        return _noted(rows[0], ChangeAction.CREATED)

    return await graph.in_transaction(work)


def _noted(row: dict[str, Any], action: ChangeAction) -> dict[str, Any]:
    """The episode a write returned (with its agent's id), its change noted for the feed."""
    episode = row["episode"]
    note_change(
        episode["client_id"], "AgentEpisode", episode["id"], action, parent_id=row["agent_id"]
    )
    return episode_record(episode)


async def get_episode(
    graph: GraphExecutor, *, principal: Principal, episode_id: str
) -> dict[str, Any]:
    return episode_record(await EPISODE.read(graph, EPISODE.scope(principal, episode_id)))


async def link_records(
    graph: GraphExecutor,
    *,
    principal: Principal,
    episode_id: str,
    reads: list[dict[str, Any]],
    writes: list[dict[str, Any]],
) -> dict[str, Any]:
    """READ / WROTE links (with a role) to the caller's records of the declared labels; an id
    that is not one is NOT_FOUND and nothing is linked. Linking twice is idempotent."""
    principal.require_writer()
    record_id = check_id(episode_id)
    links = {"reads": check_links(reads, field="reads")}
    links["writes"] = check_links(writes, field="writes")
    if not links["reads"] and not links["writes"]:
        raise ValidationFailed("give at least one record in reads or writes")

    async def work(tx: Tx) -> dict[str, Any]:
        current = await _owned(tx, record_id, principal)
        check_running(EpisodeStatus(current["status"]), episode_id=record_id, action="link")
        params = {"id": record_id, "client_id": principal.client_id} | links
        found = (await tx.run(FIND_TARGETS, params))[0]
        for kind, given in links.items():
            absent = [link["id"] for link in given if link["id"] not in found[kind]]
            if absent:
                raise missing("record", absent[0])
        rows = await tx.run(LINK_TARGETS, params | {"now": datetime.now(UTC)})
        return _noted(rows[0], ChangeAction.UPDATED)

    return await graph.in_transaction(work)


async def append_tool_calls(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    episode_id: str,
    entries: list[Any],
    max_bytes: int,
    max_chunks: int,
) -> dict[str, Any]:
    """Append tool-call entries (JSON objects) to a running episode's log, numbered in order."""
    principal.require_writer()
    record_id = check_id(episode_id)

    async def work(tx: Tx) -> dict[str, Any]:
        current = await _owned(tx, record_id, principal)
        check_running(EpisodeStatus(current["status"]), episode_id=record_id, action="append")
        now = datetime.now(UTC)
        data = tool_call_lines(
            entries, first_seq=(current.get("tool_call_count") or 0) + 1, recorded_at=now
        )
        if (current.get("tool_call_bytes") or 0) + len(data) > max_bytes:
            raise ValidationFailed(f"an episode's tool calls hold at most {max_bytes} bytes")
        appends = (current.get("tool_call_appends") or 0) + 1
        if appends > max_chunks:
            raise ValidationFailed(f"an episode takes at most {max_chunks} appends")
        # Under the episode's lock: a failed transaction's chunk is overwritten by the next.
        await artifacts.put(principal, _chunk_parts(record_id, appends), data, content_type=JSONL)
        params: dict[str, Any] = {"id": record_id, "client_id": principal.client_id}
        params |= {"appends": appends, "entries": len(entries), "bytes": len(data), "now": now}
        rows = await tx.run(APPEND_CHUNK, params)
        return _noted(rows[0], ChangeAction.UPDATED)

    return await graph.in_transaction(work)


async def close_episode(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    episode_id: str,
    fields: dict[str, Any],
) -> dict[str, Any]:
    """Close with a final status; the log is uploaded before the node points at it. latency_ms
    defaults to the time since the episode started."""
    principal.require_writer()
    record_id = check_id(episode_id)
    outcome = check_outcome(fields)
    scope = {"id": record_id, "client_id": principal.client_id}

    async def work(tx: Tx) -> dict[str, Any]:
        current = await _owned(tx, record_id, principal)
        goal = check_close(
            EpisodeStatus(current["status"]), fields.get("status"), episode_id=record_id
        )
        context = (await tx.run(LOG_CONTEXT, scope))[0]
        chunks = await _read_chunks(artifacts, principal, record_id, current)
        now = datetime.now(UTC)
        elapsed = min(int((now - current["created_at"]).total_seconds() * 1000), MAX_LATENCY_MS)
        final = outcome | {
            "status": goal.value,
            "latency_ms": elapsed if outcome["latency_ms"] is None else outcome["latency_ms"],
            "closed_at": now,
            "tool_calls": current.get("tool_call_count") or 0,
        }
        data = final_log(
            current,
            links=plain(context["links"]),
            children=context["children"],
            tool_calls=chunks,
            outcome=final,
        )
        stored = await artifacts.put(
            principal, ("episodes", record_id, "tool-call-log.jsonl"), data, content_type=JSONL
        )
        changes = {key: final[key] for key in ("status", "latency_ms", "closed_at")} | {
            "output_summary": outcome["output_summary"],
            "cost_tokens_est": outcome["cost_tokens_est"],
            "tool_call_log_uri": stored.uri,
            "tool_call_log_sha256": stored.sha256,
        }
        rows = await tx.run(CLOSE_EPISODE, scope | {"changes": changes})
        return _noted(rows[0], ChangeAction.UPDATED)

    return await graph.in_transaction(work)


async def tool_call_log_url(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    episode_id: str,
    expires_s: int = 900,
) -> str:
    """A presigned GET URL for a closed episode's log (NOT_FOUND before close)."""
    episode = await get_episode(graph, principal=principal, episode_id=episode_id)
    uri = episode.get("tool_call_log_uri")
    if uri is None:
        raise NotFound(f"episode {episode['id']} has no tool-call log until it is closed")
    return await log_url(artifacts, principal=principal, uri=uri, expires_s=expires_s)


async def log_url(
    artifacts: ArtifactStore, *, principal: Principal, uri: str, expires_s: int = 900
) -> str:
    """A presigned GET URL for a log URI of the caller's (another client's URI: NOT_FOUND)."""
    if not 1 <= expires_s <= MAX_URL_SECONDS:
        raise ValidationFailed(f"expiresS must be 1-{MAX_URL_SECONDS}", field="expires_s")
    return await artifacts.presigned_url(principal, uri, expires_s=expires_s)


async def _read_chunks(
    artifacts: ArtifactStore, principal: Principal, episode_id: str, episode: dict[str, Any]
) -> list[bytes]:
    """The pending chunks in append order, fetched a few at a time."""
    gate = asyncio.Semaphore(CHUNK_READS)

    async def fetch(index: int) -> bytes:
        key = client_key(principal, *_chunk_parts(episode_id, index))
        async with gate:
            return await artifacts.get(principal, f"s3://{artifacts.bucket}/{key}")

    count = episode.get("tool_call_appends") or 0
    return list(await asyncio.gather(*(fetch(index) for index in range(1, count + 1))))


def _chunk_parts(episode_id: str, index: int) -> tuple[str, ...]:
    return ("episodes", episode_id, "pending", f"{index:05d}.jsonl")


async def _locked(tx: Tx, episode_id: str, principal: Principal) -> dict[str, Any]:
    return await EPISODE.locked(tx, {"id": episode_id, "client_id": principal.client_id})


async def _owned(tx: Tx, episode_id: str, principal: Principal) -> dict[str, Any]:
    """The episode, locked, if the caller may change it (an agent key: its own agent's only)."""
    episode = await _locked(tx, episode_id, principal)
    principal.require_agent(episode.get("agent_name"), what="change an episode of agent")
    return episode
