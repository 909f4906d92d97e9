"""The access log's entries on their way to the graph: made safe to encode when submitted, and
written in UNWIND batches from which an entry the graph refuses for its data is isolated.

Only a refusal that is about the data isolates (the driver could not encode a value, or Neo4j
refused the statement for it: a Cypher ClientError of the Statement or Schema kind). Any other
failure (the database erred, is unavailable, a transaction timed out, ...) says nothing about
one entry: splitting the batch would only reject every entry in it, so the batch is kept and
retried as after an outage."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from neo4j.exceptions import ClientError

from app.graph.change_feed import BOOKKEEPING
from app.graph.executor import GraphExecutor

log = logging.getLogger("app.access_log")

# MERGE on the unique id: a batch written again (its first write's outcome was unknown: the
# connection dropped, or shutdown interrupted it) adds nothing twice.
WRITE_ENTRIES = """
UNWIND $entries AS entry
MERGE (e:AccessLogEntry {id: entry.id})
ON CREATE SET e = entry
"""
# Identifiers and details are short; a hostile request's megabyte of input is not kept whole.
MAX_TEXT = 1_000
Item = tuple[float, dict[str, Any]]  # (monotonic time submitted, entry)
# What the driver raises for a value it cannot encode (UnicodeEncodeError is a ValueError).
ENCODING_ERRORS = (TypeError, ValueError, OverflowError)
DATA_CATEGORIES = frozenset({"Statement", "Schema"})


def safe_text(value: str) -> str:
    """The text, cut to MAX_TEXT, with what UTF-8 cannot encode (lone surrogates) replaced."""
    value = value[:MAX_TEXT]
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace").decode("utf-8")
    return value


def safe_value(value: Any) -> Any:
    """The value with every text in it made safe (lists and maps too, at any depth)."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, list | tuple):
        return [safe_value(item) for item in value]
    if isinstance(value, dict):
        return {safe_text(str(k)): safe_value(v) for k, v in value.items()}
    return value


def safe_entry(entry: dict[str, Any]) -> dict[str, Any]:
    return {key: safe_value(value) for key, value in entry.items()}


def refused_for_data(error: BaseException) -> bool:
    """The write failed because of a value in it, not because of the database (module doc)."""
    if isinstance(error, ClientError):
        return error.category in DATA_CATEGORIES
    return isinstance(error, ENCODING_ERRORS)


@dataclass
class WriterStats:
    written: int = 0
    retried: int = 0  # writes that failed on an outage and were kept to try again
    failed: int = 0  # entries given up after max_age_s of outage, or at shutdown
    rejected: int = 0  # entries the graph refused for their data, each alone
    dropped: int = 0  # entries refused because the buffer was full
    flushes: int = 0
    last_flush_ms: float = 0.0
    last_batch: int = 0


class Batch:
    """One chunk of the buffer being written: the parts not written yet, the next one last."""

    def __init__(self, items: list[Item]) -> None:
        self.parts = [items]

    def unwritten(self) -> list[Item]:
        """In submission order, the part being written included (its outcome is unknown)."""
        return [item for part in reversed(self.parts) for item in part]


async def write_batch(graph: GraphExecutor, batch: Batch, stats: WriterStats) -> int:
    """Writes the batch, halving a part the graph refuses for its data until the bad entry is
    alone (rejected: counted, logged); any other failure (an outage) or a cancellation
    propagates with `batch` holding every entry not written yet. The number written."""
    written = 0
    while batch.parts:
        part = batch.parts[-1]
        try:
            # The log is not in the change feed, even when a request flushes it (an erasure).
            entries = [entry for _, entry in part]
            await graph.write(WRITE_ENTRIES, {"entries": entries}, changed=BOOKKEEPING)
        except Exception as error:
            if not refused_for_data(error):
                raise
            batch.parts.pop()
            if len(part) == 1:
                _reject(part[0][1], error, stats)
            else:
                middle = len(part) // 2
                batch.parts += [part[middle:], part[:middle]]
            continue
        batch.parts.pop()
        written += len(part)
        stats.written += len(part)
    return written


def _reject(entry: dict[str, Any], error: Exception, stats: WriterStats) -> None:
    stats.rejected += 1
    log.error(
        "access log: entry %s (client %s, %s) rejected by the graph: %s",
        entry.get("id"),
        entry.get("client_id"),
        entry.get("operation"),
        error,
    )
