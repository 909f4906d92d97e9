"""The ingest benchmark's load (writers appending conversation events through the API) and
its observer (the client's pending count and lag, the worker's status), sampled each second."""

from __future__ import annotations

import argparse
import threading
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import httpx
from neo4j import Driver

from app.retrieval.pending import PENDING
from app.retrieval.searchable import SEARCHABLE
from bench.event_append import APPEND_MANY, Api

STATUS = "{ searchStatus { pending lagSeconds } }"
# The client's own lag: the age of its oldest record not indexed yet (searchStatus.lagSeconds
# is the worker's, over every client).
CLIENT_LAG = (
    f"MATCH (n:ConversationEvent) WHERE n.client_id = $client_id AND {PENDING} "
    "RETURN duration.inSeconds(min(n.updated_at), datetime()).milliseconds / 1000.0 AS lag"
)


def backlog_query(label: str) -> str:
    return f"MATCH (n:{label}) WHERE {PENDING} RETURN count(n) AS n"


def backlog(driver: Driver) -> dict[str, int]:
    """Records of every client that wait for the worker, per searchable label."""
    counts = {
        label: int(driver.execute_query(backlog_query(label)).records[0]["n"])
        for label in SEARCHABLE
    }
    return {label: n for label, n in counts.items() if n}


class Load:
    """Writers appending event batches until `stop` is set or `limit` events are written, at
    most `rate` events/s in all (0: as fast as they can); per-request times and counts."""

    def __init__(self, api: Api, texts: list[str], args: argparse.Namespace) -> None:
        self.api, self.texts, self.batch = api, texts, args.batch
        self.limit, self.rate, self.writers = args.records, args.rate, args.writers
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.written = 0
        self.last_write = 0.0  # perf_counter when the last batch was answered
        self.request_ms: list[float] = []

    def writer(self, n: int) -> None:
        thread_id = self.api.thread(f"bench:ingest:{uuid.uuid4().hex}")
        sent, started_at = 0, time.perf_counter()
        while not self.stop.is_set() and self.written < self.limit:
            if self.rate:  # pace this writer at its share of the rate
                due = started_at + sent * self.writers / self.rate
                time.sleep(max(0.0, due - time.perf_counter()))
            events = [self.event(thread_id, n * 1_000_000 + sent + i) for i in range(self.batch)]
            started = time.perf_counter()
            done = self.api.call(APPEND_MANY, {"e": events})["appendConversationEvents"]
            with self.lock:
                self.request_ms.append((time.perf_counter() - started) * 1000)
                self.written += int(done["appended"])
                self.last_write = time.perf_counter()
            sent += self.batch

    def event(self, thread_id: str, n: int) -> dict[str, Any]:
        return {
            "threadId": thread_id,
            "direction": "INBOUND" if n % 2 == 0 else "OUTBOUND",
            "eventType": "DM_MESSAGE",
            "externalRef": f"bench:msg:{uuid.uuid4().hex}",
            "text": self.texts[n % len(self.texts)],
            "occurredAt": datetime.now(UTC).isoformat(),
        }


class Observer:
    def __init__(self, api: Api, http: httpx.Client, driver: Driver, client_id: str) -> None:
        self.api, self.http, self.driver, self.client_id = api, http, driver, client_id

    def sample(self, load: Load, t0: float) -> dict[str, Any]:
        status = self.api.call(STATUS, {})["searchStatus"]
        embedding = self.http.get("/readyz").json()["details"]["embedding"]
        lag = self.driver.execute_query(CLIENT_LAG, {"client_id": self.client_id}).records
        return {
            "t": round(time.perf_counter() - t0, 2),
            "written": load.written,
            "pending": int(status["pending"]),
            "client_lag_s": float(lag[0]["lag"] or 0) if lag else 0.0,
            "worker_lag_s": float(status["lagSeconds"]),
            "readyz_lag_s": float(embedding["lag_seconds"]),
            "worker_indexed": int(embedding["indexed_total"]),
        }
