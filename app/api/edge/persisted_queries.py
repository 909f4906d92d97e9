"""Persisted queries, as Apollo's automatic persisted queries protocol has them (what Apollo
Client, urql and Relay's persisted-query links send): a POST whose `extensions.persistedQuery`
is `{"version": 1, "sha256Hash": "<hex>"}`.

- With `query`: the document's SHA-256 must be the hash (else PERSISTED_QUERY_HASH_MISMATCH);
  it is registered for the caller's client and executed.
- Without `query`: the registered document runs; an unknown hash is answered with the error
  code PERSISTED_QUERY_NOT_FOUND (HTTP 200, as those clients expect), on which they send the
  document once more.

Documents are kept per client in Neo4j (migration 0037), so every API process knows a hash any
of them registered, and in a per-process cache in front of it. A document is not client data but
its literals may be: another client's hash is unknown here.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import OrderedDict
from datetime import UTC, datetime
from typing import Any

from app.domain.kernel.principal import Principal
from app.graph.executor import GraphExecutor

HASH = re.compile(r"^[0-9a-f]{64}$")
CACHED = 4_096
REGISTER = """
MERGE (p:PersistedQuery {client_id: $client_id, hash: $hash})
ON CREATE SET p.document = $document, p.created_at = $now
"""
LOOKUP = """
MATCH (p:PersistedQuery {client_id: $client_id, hash: $hash}) RETURN p.document AS document
"""


class PersistedQueryError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def body(self) -> dict[str, Any]:
        return {"errors": [{"message": self.message, "extensions": {"code": self.code}}]}


def persisted_hash(data: Any) -> str | None:
    """The hash a request body names, None when it uses no persisted query."""
    if not isinstance(data, dict) or not isinstance(data.get("extensions"), dict):
        return None
    persisted = data["extensions"].get("persistedQuery")
    if persisted is None:
        return None
    digest = persisted.get("sha256Hash") if isinstance(persisted, dict) else None
    if persisted.get("version") != 1 or not isinstance(digest, str) or not HASH.match(digest):
        raise PersistedQueryError(
            "PERSISTED_QUERY_INVALID",
            'extensions.persistedQuery must be {"version": 1, "sha256Hash": "<64 lower-case hex '
            'digits: the SHA-256 of the document>"}',
        )
    return digest


class PersistedQueries:
    def __init__(self, graph: GraphExecutor) -> None:
        self.graph = graph
        self._known: OrderedDict[tuple[str, str], str] = OrderedDict()

    async def expand(self, principal: Principal, data: dict[str, Any], digest: str) -> bytes | None:
        """The body to execute: None when it carries its document (registered now), else the
        body with the registered document in; PersistedQueryError when that cannot be."""
        key = (principal.client_id, digest)
        query = data.get("query")
        if isinstance(query, str):
            if hashlib.sha256(query.encode()).hexdigest() != digest:
                raise PersistedQueryError(
                    "PERSISTED_QUERY_HASH_MISMATCH",
                    "extensions.persistedQuery.sha256Hash is not the SHA-256 of `query` (hex of "
                    "the UTF-8 document's digest)",
                )
            if key not in self._known:
                params = {"client_id": key[0], "hash": digest, "document": query}
                await self.graph.write(REGISTER, params | {"now": datetime.now(UTC)})
                self._remember(key, query)
            return None
        document = self._known.get(key) or await self._lookup(key)
        if document is None:
            raise PersistedQueryError(
                "PERSISTED_QUERY_NOT_FOUND",
                "PersistedQueryNotFound: no document is registered for this hash; send the "
                "request again with `query` (the document) to register it",
            )
        return json.dumps({**data, "query": document}).encode()

    async def _lookup(self, key: tuple[str, str]) -> str | None:
        rows = await self.graph.read(LOOKUP, {"client_id": key[0], "hash": key[1]})
        if not rows:
            return None
        document = str(rows[0]["document"])
        self._remember(key, document)
        return document

    def _remember(self, key: tuple[str, str], document: str) -> None:
        self._known[key] = document
        self._known.move_to_end(key)
        while len(self._known) > CACHED:
            self._known.popitem(last=False)
