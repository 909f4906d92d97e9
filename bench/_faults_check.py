"""After the faults: every acknowledged write read back from Neo4j and S3, and every stored
object reference of the load's clients checked."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable
from typing import Any

import httpx
from minio import Minio
from minio.error import S3Error
from neo4j import GraphDatabase

from app.artifacts.store import make_client
from app.settings import Settings
from bench._faults_load import Ack

READ_BACK = {
    "remember": """MATCH (n:MemoryRecord) WHERE n.id IN $ids
      RETURN n.id AS id, n {.key, .content_sha256} AS props, n.content_uri AS uri""",
    "plan": """MATCH (n:Plan) WHERE n.id IN $ids RETURN n.id AS id, n {.name} AS props,
      null AS uri""",
    "event": """MATCH (n:ConversationEvent) WHERE n.id IN $ids
      RETURN n.id AS id, n {.external_ref, .text_sha256} AS props, n.text_uri AS uri""",
}
ORPHAN_METRIC = "agentmem_orphaned_objects_"
# Every property of the load's clients' nodes that names a stored object.
REFERENCES = """
MATCH (n) WHERE n.client_id IN $clients
UNWIND [n.content_uri, n.text_uri, n.uri] + coalesce(n.media_uris, []) AS uri
WITH uri WHERE uri IS NOT NULL
RETURN collect(DISTINCT uri) AS uris
"""


def verify(settings: Settings, acks: list[Ack], clients: list[str]) -> dict[str, Any]:
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    s3 = make_client(settings)
    with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
        with driver.session(database=settings.neo4j_database) as session:
            found = {
                kind: {r["id"]: r for r in session.run(query, ids=_ids(acks, kind))}
                for kind, query in READ_BACK.items()
            }
            references = session.run(REFERENCES, clients=clients).single()["uris"]
    lost, half_written = [], []
    for ack in acks:
        row = found[ack.kind].get(ack.id)
        if row is None:
            lost.append(ack.id)
        elif not _as_written(s3, settings.s3_bucket, ack, row):
            half_written.append(ack.id)
    stored = _stored(s3, settings.s3_bucket, clients)
    return {
        "acknowledged": len(acks),
        "lost": len(lost),
        "half_written": len(half_written),
        "dangling": len([uri for uri in references if _key(settings, uri) not in stored]),
        "orphaned_objects": len(stored - {_key(settings, uri) for uri in references}),
        "stored_objects": len(stored),
        "examples": {"lost": lost[:5], "half_written": half_written[:5]},
    }


def _ids(acks: Iterable[Ack], kind: str) -> list[str]:
    return [ack.id for ack in acks if ack.kind == kind]


def _as_written(s3: Minio, bucket: str, ack: Ack, row: Any) -> bool:
    """The node holds what was sent, and its object (if any) hashes to the recorded sha256."""
    props = dict(row["props"])
    if any(props.get(name) != value for name, value in ack.expected.items()):
        return False
    if row["uri"] is None:
        return ack.kind == "plan"
    try:
        response = s3.get_object(bucket, row["uri"].removeprefix(f"s3://{bucket}/"))
    except S3Error:
        return False
    try:
        digest = hashlib.sha256(response.read()).hexdigest()
    finally:
        response.close()
        response.release_conn()
    return digest == props.get("content_sha256", props.get("text_sha256"))


def _stored(s3: Minio, bucket: str, clients: list[str]) -> set[str]:
    return {
        str(item.object_name)
        for client in clients
        for item in s3.list_objects(bucket, prefix=f"client/{client}/", recursive=True)
    }


def _key(settings: Settings, uri: str) -> str:
    return uri.removeprefix(f"s3://{settings.s3_bucket}/")


def orphan_totals(metrics: str) -> dict[str, int]:
    """The API's orphaned-object reconciliation counters, from its /metrics text."""
    totals = {}
    for line in metrics.splitlines():
        if line.startswith(ORPHAN_METRIC):
            name, value = line.removeprefix(ORPHAN_METRIC).split()
            totals[name.removesuffix("_total")] = int(float(value))
    return totals


def reconciled(api_url: str, *, within_s: float = 60.0) -> dict[str, int]:
    """The API's reconciliation totals once nothing waits in its queue (or after `within_s`):
    objects a failed write may have left are removed after a grace period."""
    deadline = time.monotonic() + within_s
    while True:
        totals = orphan_totals(httpx.get(f"{api_url}/metrics", timeout=10).text)
        if not totals.get("pending") or time.monotonic() > deadline:
            return totals
        time.sleep(1)
