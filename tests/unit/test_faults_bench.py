"""The faults benchmark's bookkeeping: what it expects of a write matches how the service
stores it, and its outage table groups answers by fault."""

from __future__ import annotations

import hashlib

from app.domain.memory import content_bytes
from bench._faults_check import orphan_totals
from bench._faults_load import Load, Refusal, content_sha256
from bench.faults import answers_by_fault


def test_expected_content_hash_is_the_services() -> None:
    content = {"op": "é", "blob": "x" * 100, "nested": [1, {"b": 2, "a": 1}]}
    stored = content_bytes(content)
    assert stored is not None
    assert content_sha256(content) == hashlib.sha256(stored).hexdigest()


def test_answers_are_grouped_by_fault_and_answer() -> None:
    load = Load(url="http://127.0.0.1:1", keys=[], payload_bytes=10)
    down = "the graph database is unavailable"
    load.refusals += [
        Refusal("Neo4j killed", "HTTP 503 UNAVAILABLE", 5.0, down),
        Refusal("Neo4j killed", "HTTP 503 UNAVAILABLE", 4000.0, down),
        Refusal("API killed", "no answer (ConnectError)", 1.0, ""),
    ]
    rows = answers_by_fault(load)
    assert [(r["phase"], r["answer"], r["count"]) for r in rows] == [
        ("API killed", "no answer (ConnectError)", 1),
        ("Neo4j killed", "HTTP 503 UNAVAILABLE", 2),
    ]
    assert rows[1]["median_ms"] == 2002.5 and rows[1]["max_ms"] == 4000.0
    assert rows[1]["messages"] == [down]


def test_reconciliation_totals_are_read_from_the_metrics_text() -> None:
    metrics = (
        "# TYPE agentmem_orphaned_objects_pending gauge\n"
        "agentmem_orphaned_objects_pending 2\n"
        "# TYPE agentmem_orphaned_objects_removed_total counter\n"
        "agentmem_orphaned_objects_removed_total 5\n"
        "agentmem_access_log_pending 7\n"
    )
    assert orphan_totals(metrics) == {"pending": 2, "removed": 5}
