"""One indexing pass over a searchable label: find changed records, embed, write back."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j.exceptions import DatabaseError, DriverError, TransientError

from app.graph.executor import GraphExecutor
from app.graph.identifiers import cypher_label
from app.model.labels import DERIVED_FILTERS
from app.retrieval.embedder import Embedder
from app.retrieval.pending import PENDING
from app.retrieval.searchable import SearchableSpec, texts_for

log = logging.getLogger(__name__)

SEARCH_TEXT_MAX = 32_000
# The event a conversation event follows in its thread (index on thread_id, sequence).
PREVIOUS_EVENT = (
    "head(COLLECT { MATCH (p:ConversationEvent {thread_id: n.thread_id}) "
    "WHERE p.sequence = n.sequence - 1 AND p.client_id = n.client_id "
    "RETURN p {.text, .metadata} })"
)


def scan_query(spec: SearchableSpec, *, newest_first: bool) -> str:
    names = (*spec.text_fields, *([spec.stored_text] if spec.stored_text else []))
    fields = ", ".join(f".{name}" for name in names)
    derived = ", ".join(f"{name}: {spec.derived.get(name, 'null')}" for name in DERIVED_FILTERS)
    order = "DESC" if newest_first else "ASC"
    previous = PREVIOUS_EVENT if spec.conversational else "null"
    return (
        f"MATCH (n:{cypher_label(spec.label)}) WHERE n.updated_at >= $since AND {PENDING} "
        "RETURN n.id AS id, n.client_id AS client_id, n.updated_at AS updated_at, "
        "toString(n.updated_at) AS stamp, "
        f"n.search_hash AS hash, n {{{fields}}} AS props, {{{derived}}} AS derived, "
        f"{previous} AS previous "
        f"ORDER BY n.updated_at {order} LIMIT $batch"
    )


def write_query(spec: SearchableSpec) -> str:
    derived = ", ".join(f"n.search_{name} = row.derived.{name}" for name in DERIVED_FILTERS)
    return (
        "UNWIND $rows AS row "
        f"MATCH (n:{cypher_label(spec.label)} {{id: row.id}}) "
        # Compared as text: a datetime sent back by the driver may carry another zone form.
        "WHERE toString(n.updated_at) = row.stamp AND n.client_id = row.client_id "
        "FOREACH (_ IN CASE WHEN row.embedding IS NULL THEN [] ELSE [1] END | "
        "  SET n:Searchable, n.record_type = $record_type, n.search_client = row.client_key, "
        "  n.search_text = row.text, n.search_hash = row.hash, n.embedding = row.embedding, "
        f"  n.embedding_model = $model, n.search_truncated = row.truncated, {derived}, "
        "  n.embedded_at = datetime()) "
        "FOREACH (_ IN CASE WHEN row.empty THEN [1] ELSE [] END | "
        "  REMOVE n:Searchable, n.embedding, n.search_text, n.search_hash) "
        "SET n.indexed_version = n.updated_at REMOVE n.index_error"
    )


def failed_query(spec: SearchableSpec) -> str:
    """Records that cannot be indexed wait, marked, for their next update instead of blocking
    every later batch of their label."""
    return (
        "UNWIND $rows AS row "
        f"MATCH (n:{cypher_label(spec.label)} {{id: row.id}}) "
        "WHERE toString(n.updated_at) = row.stamp AND n.client_id = row.client_id "
        "SET n.indexed_version = n.updated_at, n.index_error = row.error"
    )


def client_key(client_id: str) -> str:
    """The client id as one full-text token (the analyzer splits on hyphens)."""
    return client_id.replace("-", "").lower()


def text_hash(model: str, text: str) -> str:
    return hashlib.sha256(f"{model}\n{text}".encode()).hexdigest()


# Reads stored text: (client_id, uri) -> text.
TextLoader = Callable[[str, str], Awaitable[str]]


# The database is unreachable or busy: the whole pass is retried on a later cycle, and no
# record is blamed for it.
UNAVAILABLE = (DriverError, TransientError, DatabaseError, OSError)


@dataclass
class PassResult:
    seen: int
    embedded: int
    oldest: datetime | None
    newest: datetime | None
    failed: int = 0


async def index_pass(
    graph: GraphExecutor,
    embedder: Embedder,
    *,
    spec: SearchableSpec,
    since: datetime,
    batch: int,
    newest_first: bool,
    load_text: TextLoader | None = None,
) -> PassResult:
    rows = await graph.read(
        scan_query(spec, newest_first=newest_first), {"since": since, "batch": batch}
    )
    if not rows:
        return PassResult(0, 0, None, None)
    found = [await _with_stored_text(spec, dict(row), load_text) for row in rows]
    prepared = [_prepare(embedder.model_name, spec, row) for row in found]
    embedded, failed = await _index_or_isolate(graph, embedder, spec, prepared)
    stamps = [row["updated_at"] for row in rows]
    oldest, newest = min(stamps).to_native(), max(stamps).to_native()
    return PassResult(len(rows), embedded, oldest, newest, failed)


async def _index_or_isolate(
    graph: GraphExecutor, embedder: Embedder, spec: SearchableSpec, rows: list[dict[str, Any]]
) -> tuple[int, int]:
    """(embedded, failed): the rows in one write; if that fails (the database reachable), each
    row on its own, and a row that fails alone is marked with its error (`index_error`)."""
    try:
        return await _index(graph, embedder, spec, rows), 0
    except UNAVAILABLE:
        raise
    except Exception as error:  # noqa: BLE001 - one bad record must not stop its whole label
        if len(rows) == 1:
            log.warning("cannot index %s %s: %s", spec.label, rows[0]["id"], error)
            failure = {**rows[0], "error": f"{type(error).__name__}: {error}"[:500]}
            await graph.write(failed_query(spec), {"rows": [failure]})
            return 0, 1
    embedded = failed = 0
    for row in rows:
        done, bad = await _index_or_isolate(graph, embedder, spec, [row])
        embedded, failed = embedded + done, failed + bad
    return embedded, failed


async def _index(
    graph: GraphExecutor, embedder: Embedder, spec: SearchableSpec, rows: list[dict[str, Any]]
) -> int:
    """Embeds the rows whose text changed and writes every row back; the number embedded."""
    to_embed = [row for row in rows if not row["empty"] and not row["unchanged"]]
    if to_embed:
        texts = [row["embed_text"] for row in to_embed]
        vectors, truncated = await embedder.embed_batch(texts)
        for row, vector, cut in zip(to_embed, vectors, truncated, strict=True):
            row["embedding"], row["truncated"] = vector, cut
    params = {"rows": rows, "record_type": spec.label, "model": embedder.model_name}
    await graph.write(write_query(spec), params)
    return len(to_embed)


async def _with_stored_text(
    spec: SearchableSpec, row: dict[str, Any], load_text: TextLoader | None
) -> dict[str, Any]:
    props = dict(row["props"])
    uri = props.get(spec.stored_text) if spec.stored_text else None
    if load_text is None or not uri or props.get("text"):
        return row
    try:
        props["text"] = (await load_text(row["client_id"], str(uri)))[:SEARCH_TEXT_MAX]
    except Exception:  # an unreadable object leaves the record findable by its other text
        log.warning("could not read %s for indexing", uri, exc_info=True)
    return row | {"props": props}


def _prepare(model: str, spec: SearchableSpec, row: dict[str, Any]) -> dict[str, Any]:
    previous = dict(row["previous"]) if row.get("previous") else None
    texts = texts_for(spec, dict(row["props"]), previous)
    text, embed_text = texts.keyword[:SEARCH_TEXT_MAX], texts.vector[:SEARCH_TEXT_MAX]
    # One text for both signals hashes as before, so those records are not re-embedded.
    digest = text_hash(model, text if text == embed_text else f"{text}\n\x00{embed_text}")
    return {
        "id": row["id"],
        "client_id": row["client_id"],
        "client_key": client_key(row["client_id"]),
        "stamp": row["stamp"],
        "derived": dict(row["derived"]),
        "text": text,
        "embed_text": embed_text,
        "hash": digest,
        "empty": not text,
        "unchanged": digest == row["hash"],
        "embedding": None,
        "truncated": False,
    }
