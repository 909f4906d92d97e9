"""Memory records (seeds 001-004): remember (create, or upsert by namespace + key), recall,
forget (soft, or hard on request) and history. Every query is scoped by the caller's client;
every call is written to the access log (app/domain/memory/access_log.py).

An upsert replaces the record's fields as a whole: the previous state is kept as a
MemoryVersion (HAS_VERSION) and `version` goes up by one. A write to a forgotten or expired
(not yet purged) key revives it as the next version. Expired records are invisible to every
read from the moment they expire (LIVE below); the sweeper purges them later.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.artifacts.staged import staged_uploads
from app.artifacts.store import ArtifactStore
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import missing
from app.domain.memory.access_log import audited
from app.domain.memory.content import decode_inline, hydrate
from app.domain.memory.fields import MemoryPolicy, PreparedMemory, check_memory, with_content
from app.domain.memory.forget import forget
from app.domain.memory.locate import LIVE, NOT_EXPIRED, RECORD_MAP, RETURN_RECORD, Locator, locate
from app.domain.memory.write import write_memory
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import Role

RECALL = {by: f"{match} WHERE {LIVE} {RETURN_RECORD}" for by, match in Locator.MATCHES.items()}
HISTORY = {
    by: f"""{match} WHERE {NOT_EXPIRED} AND ($include_inactive OR r.active)
RETURN {RECORD_MAP} AS record,
       COLLECT {{
         MATCH (r)-[:HAS_VERSION]->(v:MemoryVersion)
         RETURN v {{.*}} ORDER BY v.version DESC
       }} AS versions"""
    for by, match in Locator.MATCHES.items()
}
DEFAULT_POLICY = MemoryPolicy()

__all__ = ["forget", "history", "recall", "remember", "write_memory"]


async def remember(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    fields: dict[str, Any],
    policy: MemoryPolicy = DEFAULT_POLICY,
) -> dict[str, Any]:
    """Create a record, or (with a key) upsert the one at (namespace, key); the record as stored,
    with its content decoded. `fields`: see memory_fields.FIELDS."""
    with audited(principal, "create") as audit:
        principal.require_writer()
        now = datetime.now(UTC)
        checked = check_memory(fields, principal=principal, now=now)
        _check_bound(principal, checked)

        async def work(tx: Tx) -> Any:
            return await write_memory(tx, principal=principal, memory=memory, now=now)

        # Content is stored at its hash (another version may point at the same object).
        async with staged_uploads(artifacts, principal, shared=True):
            memory = await with_content(
                artifacts, principal, checked, fields.get("content"), policy
            )
            written = await graph.in_transaction(work)
        audit.operation, audit.target_id = written.change, written.record["id"]
        audit.detail = f"version {written.record['version']}"
        audit.session_id = written.record.get("session_id")
        out = decode_inline(written.record)
        if out.get("content_uri"):
            out["content"] = fields.get("content")
        return out


def _check_bound(principal: Principal, memory: PreparedMemory) -> None:
    """An agent key writes only its own agent's memory, as itself (checked after the input's
    own checks, before anything is stored)."""
    principal.require_agent(memory.state["agent"], what="write memory of agent")
    principal.require_agent(memory.state["source_agent"], what="write memory as agent")


async def recall(
    graph: GraphExecutor,
    artifacts: ArtifactStore,
    *,
    principal: Principal,
    record_id: str | None = None,
    namespace: dict[str, Any] | str | None = None,
    key: str | None = None,
    kind: str | None = None,
    hydrated: bool = True,
) -> dict[str, Any]:
    """One live record by id, or by namespace (parts or canonical string) and key; NOT_FOUND
    when missing, forgotten, expired, another client's, or (with `kind`) of another kind."""
    with audited(principal, "read", target_id=record_id) as audit:
        where = locate(record_id, namespace, key)
        audit.detail = where.describe()
        params = where.params | {"client_id": principal.client_id, "now": datetime.now(UTC)}
        rows = await graph.read_plain(RECALL[where.by], params)
        if not rows or (kind is not None and rows[0]["record"]["kind"] != kind):
            raise missing("memory record", where.describe())
        record = rows[0]["record"]
        audit.target_id, audit.session_id = record["id"], record.get("session_id")
        if hydrated:
            return await hydrate(artifacts, principal, record)
        return decode_inline(record)


async def history(
    graph: GraphExecutor,
    *,
    principal: Principal,
    record_id: str | None = None,
    namespace: dict[str, Any] | str | None = None,
    key: str | None = None,
    include_inactive: bool = False,
) -> dict[str, Any]:
    """{record, versions}: the current record and its superseded states, newest first.
    A forgotten record's history is for admins (include_inactive)."""
    with audited(principal, "history", target_id=record_id) as audit:
        if include_inactive:
            principal.require(Role.ADMIN)
        where = locate(record_id, namespace, key)
        audit.detail = where.describe()
        params = where.params | {
            "client_id": principal.client_id,
            "now": datetime.now(UTC),
            "include_inactive": include_inactive,
        }
        rows = await graph.read(HISTORY[where.by], params)
        if not rows:
            raise missing("memory record", where.describe())
        record = decode_inline(plain(rows[0]["record"]))
        audit.target_id = record["id"]
        versions = [decode_inline(plain(v)) for v in rows[0]["versions"]]
        return {"record": record, "versions": versions}
