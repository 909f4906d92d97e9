"""Idempotent creates: a retry with the same idempotency key gets the first result.

`run_once` claims the key and runs the create in ONE write transaction: MERGE on the unique
(client_id, caller, key) of an IdempotencyKey node (migration 0023) makes a concurrent retry
wait for the first transaction; if that one commits, the retry finds the claim and returns the
stored result (no second node or version), and if it rolls back, the retry creates. The claim
holds a fingerprint of the request: the same key with a different request is CONFLICT.

Keys are per caller: the client, and who acts within it (Principal.actor: the role and the
key's agent). Another caller's use of the same key is a claim of its own, so its create runs
with every permission and agent-binding check of its own, and never sees a result it was not
given (an agent key cannot replay a reviewer's create for another agent). Claims expire
after a retention (Settings.idempotency_retention_s): an expired claim is taken over at its next
use, and `purge_expired` deletes them in the background.

The create runs against `TransactionGraph`, which sends every query of the repository function
(reads, writes, its own transactions) into the claim's transaction.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar, cast

from app.domain.kernel.errors import Conflict
from app.domain.kernel.field_rules import check_pattern
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.result_codec import decode, encode, fingerprint
from app.graph.executor import GraphExecutor, Record, Tx
from app.graph.fragments import lock
from app.graph.values import plain

T = TypeVar("T")
KEY_PATTERN = re.compile(r"^[\x21-\x7e]{1,255}$")  # printable ASCII, no spaces
CLAIM = f"""
MERGE (k:IdempotencyKey {{client_id: $client_id, caller: $caller, key: $key}})
ON CREATE SET k.claim = $claim, k.fingerprint = $fingerprint, k.operation = $operation,
              k.created_at = $now, k.expires_at = $expires_at
// MERGE locks only what it creates: lock a found claim before reading it.
{lock("k")}
WITH k, k.claim <> $claim AND k.expires_at <= $now AS expired
SET k += CASE WHEN expired THEN {{claim: $claim, fingerprint: $fingerprint,
  operation: $operation, result: null, created_at: $now, expires_at: $expires_at}} ELSE {{}} END
RETURN k.claim = $claim AS claimed, k.fingerprint AS fingerprint, k.operation AS operation,
       k.result AS result
"""
RECORD_RESULT = """
MATCH (k:IdempotencyKey {client_id: $client_id, caller: $caller, key: $key})
SET k.result = $result
"""
PURGE_EXPIRED = """
MATCH (k:IdempotencyKey) WHERE k.expires_at <= $now
WITH k LIMIT $batch
DELETE k
RETURN count(*) AS purged
"""


class TransactionGraph(GraphExecutor):
    """A GraphExecutor whose every call runs in one open transaction (nested transactions of
    the repository function become part of it; `write` is the executor's, run in it)."""

    def __init__(self, graph: GraphExecutor, tx: Tx) -> None:
        super().__init__(graph.driver, database=graph.database)
        self._tx = tx

    async def read(self, query: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        return await self._tx.run(query, params)

    async def read_plain(self, query: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        return [plain(row) for row in await self._tx.run(query, params)]

    async def in_transaction(self, work: Callable[[Tx], Awaitable[T]]) -> T:
        return await work(self._tx)


class _Replayed(Exception):
    """Raised inside the transaction to roll it back when the key was already claimed."""

    def __init__(self, row: dict[str, Any]) -> None:
        super().__init__("idempotency key already used")
        self.row = row


def check_key(key: str) -> str:
    rule = "idempotencyKey: 1-255 printable ASCII characters without spaces, e.g. a UUID"
    return check_pattern(key, KEY_PATTERN, field="idempotency_key", rule=rule)


async def run_once(
    graph: GraphExecutor,
    principal: Principal,
    *,
    key: str,
    operation: str,
    request: Any,
    create: Callable[[GraphExecutor], Awaitable[T]],
    retention_s: float,
) -> T:
    """`create`'s result, or the stored result of the first call with this key and request."""
    now = datetime.now(UTC)
    params = {
        "client_id": principal.client_id,
        "caller": principal.actor,
        "key": check_key(key),
        "claim": new_id(),
        "fingerprint": fingerprint(operation, request),
        "operation": operation,
        "now": now,
        "expires_at": now + timedelta(seconds=retention_s),
    }

    async def unit(tx: Tx) -> T:
        row = plain((await tx.run(CLAIM, params))[0])
        if not row["claimed"]:
            raise _Replayed(row)
        result = await create(TransactionGraph(graph, tx))
        await tx.run(RECORD_RESULT, params | {"result": encode(result)})
        return result

    try:
        return await graph.in_transaction(unit)
    except _Replayed as replayed:
        # What was stored is what `create` returned the first time: a T again once decoded.
        return cast(T, _first_result(replayed.row, params))


def _first_result(row: dict[str, Any], params: dict[str, Any]) -> Any:
    if row["fingerprint"] != params["fingerprint"]:
        raise Conflict(
            f"idempotencyKey {params['key']!r} was used for another request "
            f"({row['operation']} with other input); send a new key for a new request",
            idempotency_key=params["key"],
            operation=row["operation"],
        )
    return decode(row["result"])


async def purge_expired(graph: GraphExecutor, *, batch: int = 1_000) -> int:
    """Delete expired claims, a batch at a time; how many."""
    purged = 0
    while True:
        rows = await graph.write(PURGE_EXPIRED, {"now": datetime.now(UTC), "batch": batch})
        count = int(rows[0]["purged"]) if rows else 0
        purged += count
        if count < batch:
            return purged
