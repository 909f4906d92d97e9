"""One indexing pass over a searchable label: find changed records, claim them (claims.py),
embed, write back."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j.exceptions import DatabaseError, DriverError, TransientError

from app.graph.executor import GraphExecutor, Record
from app.graph.values import plain
from app.retrieval.claims import Claimant, by_id, candidates_query, claim, expired_query
from app.retrieval.embedder import Embedder
from app.retrieval.index_rows import SEARCH_TEXT_MAX, failed_query, prepare, returned, write_query
from app.retrieval.searchable import SearchableSpec
from app.retrieval.vectors import embed_rows, targets_of

log = logging.getLogger(__name__)

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
    claimant: Claimant,
    load_text: TextLoader | None = None,
) -> PassResult:
    """Pending records changed since `since`, newest or oldest first, that no other worker
    holds: claimed, embedded and written back."""
    query = candidates_query(spec, newest_first=newest_first)
    found = await graph.read(query, {"since": since, "batch": batch})
    return await _claimed_pass(graph, embedder, spec, found, claimant, load_text)


async def expired_claims_pass(
    graph: GraphExecutor,
    embedder: Embedder,
    *,
    spec: SearchableSpec,
    batch: int,
    claimant: Claimant,
    load_text: TextLoader | None = None,
) -> PassResult:
    """Pending records whose claim ran out (a worker died holding them), whatever their age."""
    found = await graph.read(expired_query(spec), {"batch": batch})
    return await _claimed_pass(graph, embedder, spec, found, claimant, load_text)


async def _claimed_pass(
    graph: GraphExecutor,
    embedder: Embedder,
    spec: SearchableSpec,
    found: list[Record],
    claimant: Claimant,
    load_text: TextLoader | None,
) -> PassResult:
    """`found` claimed, and what this worker holds of it indexed. Seen, oldest and newest are
    of `found`: a record another worker claimed meanwhile is that worker's to index."""
    if not found:
        return PassResult(0, 0, None, None)
    rows = await claim(graph, spec, found, claimant, returning=returned(spec))
    held = [await with_stored_text(spec, dict(row), load_text) for row in rows]
    prepared = by_id([prepare(spec, row) for row in held])
    embedded, failed = await _index_or_isolate(graph, embedder, spec, prepared, claimant)
    stamps = [row["updated_at"] for row in found]
    oldest, newest = plain(min(stamps)), plain(max(stamps))
    return PassResult(len(found), embedded, oldest, newest, failed)


async def _index_or_isolate(
    graph: GraphExecutor,
    embedder: Embedder,
    spec: SearchableSpec,
    rows: list[dict[str, Any]],
    claimant: Claimant,
) -> tuple[int, int]:
    """(embedded, failed): the rows in one write; if that fails (the database reachable), each
    row on its own, and a row that fails alone is marked with its error (`index_error`)."""
    if not rows:
        return 0, 0
    try:
        return await _index(graph, embedder, spec, rows, claimant), 0
    except UNAVAILABLE:
        raise
    except Exception as error:  # noqa: BLE001 - one bad record must not stop its whole label
        if len(rows) == 1:
            log.warning("cannot index %s %s: %s", spec.label, rows[0]["id"], error)
            failure = {**rows[0], "error": f"{type(error).__name__}: {error}"[:500]}
            params = {"rows": [failure], "holder": claimant.holder}
            await graph.write(failed_query(spec), params)
            return 0, 1
    embedded = failed = 0
    for row in rows:
        done, bad = await _index_or_isolate(graph, embedder, spec, [row], claimant)
        embedded, failed = embedded + done, failed + bad
    return embedded, failed


async def _index(
    graph: GraphExecutor,
    embedder: Embedder,
    spec: SearchableSpec,
    rows: list[dict[str, Any]],
    claimant: Claimant,
) -> int:
    """Embeds the rows for the models they need (vectors.py) and writes every row back; the
    number embedded."""
    targets = targets_of(embedder)
    embedded = await embed_rows(targets, rows)
    params = {"rows": rows, "holder": claimant.holder, "record_type": spec.label}
    written = await graph.write(write_query(spec), params)
    if written and written[0]["unmet"]:
        targets.invalidate()  # the graph knows an index this process does not yet
    return embedded


async def with_stored_text(
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
