"""Benchmark: workspace snapshot and diff (by manifest hashes) of N files through HTTP GraphQL,
against a plain Cypher count of the same live files through the driver (the baseline) and the
Cypher read a snapshot makes (every live path with its SHA-256), in the same run.

Run: bash app/services/env.sh bench workspaces [--files 10000] [--runs 20] [--changes 100]
(local servers up). A new workspace of the client `bench-workspaces` gets `--files` files: 100
are written through the API (their bytes in object storage), the rest are made by one UNWIND
write reusing those bytes (content-addressed: the same bytes are one object). Snapshot A is
taken, `--changes` paths are changed, added or deleted through the API (a third each), then
snapshot B. Timed, the cases taking turns call by call (bench._common.timed_rounds): snapshot
(a new snapshot each call), diff A->B, diff A->A (equal hashes: nothing read from storage),
diff B->now (the live files), the count, the read. The workspace's nodes are removed after.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from neo4j import Driver, GraphDatabase

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.cli.admin import create_key  # noqa: E402
from app.model.enums import Role  # noqa: E402
from app.settings import Settings, load_settings  # noqa: E402
from bench._common import (  # noqa: E402
    GraphQLClient,
    free_port,
    report,
    serve_api,
    summary,
    timed_rounds,
)

CREATE = """mutation($name: String!) { createWorkspace(input: {name: $name}) { id } }"""
WRITE = """mutation($i: WriteWorkspaceFileInput!) { writeWorkspaceFile(input: $i) { id } }"""
DELETE = """mutation($w: ID!, $p: String!) {
  deleteWorkspaceFile(workspaceId: $w, path: $p) { id } }"""
SNAPSHOT = """mutation($w: ID!) { snapshotWorkspace(workspaceId: $w) {
  id fileCount manifestSha256 } }"""
DIFF = """query($from: ID!, $to: ID) { workspaceDiff(from: $from, to: $to) {
  identical addedCount removedCount changedCount } }"""
# The rest of the files, as writeWorkspaceFile makes them: file, version 1, the workspace's
# counters; `$seeds` are the bytes written through the API (sha256, size, uri, media type).
SEED = """
MATCH (w:Workspace {id: $w, client_id: $c})
UNWIND range($from, $to - 1) AS n
WITH w, n, $seeds[n % size($seeds)] AS s,
     'src/dir' + toString(n % 100) + '/file' + toString(n) + '.txt' AS path
CREATE (w)-[:HAS_FILE]->(f:WorkspaceFile {id: randomUUID(), client_id: $c, workspace_id: $w,
  path: path, version: 1, is_deleted: false, sha256: s.sha256, size: s.size,
  media_type: s.media_type, uri: s.uri, created_at: datetime(), updated_at: datetime()})
CREATE (f)-[:HAS_VERSION]->(:WorkspaceFileVersion {id: randomUUID(), client_id: $c,
  file_id: f.id, workspace_id: $w, path: path, version: 1, is_deleted: false,
  sha256: s.sha256, size: s.size, media_type: s.media_type, uri: s.uri, author: 'bench',
  created_at: datetime(), updated_at: datetime()})
WITH w, count(*) AS made, sum(s.size) AS bytes
SET w.file_count = w.file_count + made, w.total_bytes = w.total_bytes + bytes
"""
SEEDS = """
MATCH (f:WorkspaceFile {client_id: $c, workspace_id: $w})
RETURN collect(f {.sha256, .size, .uri, .media_type}) AS seeds
"""
COUNT = """
MATCH (f:WorkspaceFile {client_id: $c, workspace_id: $w}) WHERE NOT f.is_deleted
RETURN count(f) AS n
"""
READ = """
MATCH (f:WorkspaceFile {client_id: $c, workspace_id: $w}) WHERE NOT f.is_deleted
RETURN collect([f.path, f.sha256]) AS files
"""
CLEAN_FILES = """
MATCH (f:WorkspaceFile {client_id: $c, workspace_id: $w})
WITH f LIMIT 2000
OPTIONAL MATCH (f)-[:HAS_VERSION]->(v:WorkspaceFileVersion)
DETACH DELETE f, v
RETURN count(DISTINCT f) AS n
"""
CLEAN_WORKSPACE = """
MATCH (w:Workspace {id: $w, client_id: $c})
OPTIONAL MATCH (w)-[:HAS_SNAPSHOT]->(s:WorkspaceSnapshot)
DETACH DELETE w, s
"""
WRITTEN = 100


def post(client: GraphQLClient, query: str, **variables: Any) -> dict[str, Any]:
    data: dict[str, Any] = client.post(query, variables)["data"]
    return data


def seed(client: GraphQLClient, driver: Driver, scope: dict[str, Any], files: int) -> None:
    """`files` live files: the first WRITTEN through the API, the rest by one UNWIND write."""
    for n in range(min(files, WRITTEN)):
        path = f"src/dir{n % 100}/file{n}.txt"
        given = {"workspaceId": scope["w"], "path": path, "text": f"file {n}\n" * 20}
        post(client, WRITE, i=given)
    seeds = driver.execute_query(SEEDS, scope).records[0]["seeds"]
    for start in range(WRITTEN, files, 5_000):
        bounds = {"from": start, "to": min(files, start + 5_000)}
        driver.execute_query(SEED, scope | bounds | {"seeds": seeds})
        print(f"\r  seeding files: {bounds['to']}/{files}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)


def change(client: GraphQLClient, workspace_id: str, files: int, changes: int) -> None:
    """A third of `changes` paths changed, a third added, a third deleted, through the API."""
    third = max(1, changes // 3)
    for n in range(third):
        path = f"src/dir{n % 100}/file{n}.txt"
        post(client, WRITE, i={"workspaceId": workspace_id, "path": path, "text": f"changed {n}"})
        post(client, WRITE, i={"workspaceId": workspace_id, "path": f"new/{n}.md", "text": "new"})
        gone = f"src/dir{(files - 1 - n) % 100}/file{files - 1 - n}.txt"
        post(client, DELETE, w=workspace_id, p=gone)


def measure(
    settings: Settings,
    driver: Driver,
    connect: Callable[[], GraphQLClient],
    args: argparse.Namespace,
) -> tuple[dict[str, Any], dict[str, dict[str, float]]]:
    client = connect()
    workspace_id = post(client, CREATE, name=f"bench-{os.getpid()}")["createWorkspace"]["id"]
    client_id = driver.execute_query(
        "MATCH (w:Workspace {id: $w}) RETURN w.client_id AS c", {"w": workspace_id}
    ).records[0]["c"]
    scope = {"w": workspace_id, "c": client_id}
    try:
        seed(client, driver, scope, args.files)
        client.close()  # idle through the UNWIND: the API closed the keep-alive connection
        client = connect()
        first = post(client, SNAPSHOT, w=workspace_id)["snapshotWorkspace"]
        change(client, workspace_id, args.files, args.changes)
        second = post(client, SNAPSHOT, w=workspace_id)["snapshotWorkspace"]
        found = post(client, DIFF, **{"from": first["id"], "to": second["id"]})["workspaceDiff"]
        db = settings.neo4j_database

        def diff(from_id: str, to_id: str | None = None) -> Any:
            return lambda: post(client, DIFF, **{"from": from_id, "to": to_id})

        cases = {
            "snapshot (GraphQL)": lambda: post(client, SNAPSHOT, w=workspace_id),
            "diff A->B (GraphQL)": diff(first["id"], second["id"]),
            "diff A->A, equal hashes (GraphQL)": diff(first["id"], first["id"]),
            "diff B->now (GraphQL)": diff(second["id"]),
            "baseline: count (Cypher)": lambda: driver.execute_query(COUNT, scope, database_=db),
            "read paths+hashes (Cypher)": lambda: driver.execute_query(READ, scope, database_=db),
        }
        samples = timed_rounds(cases, runs=args.runs, warmup=2, label="workspaces")
        sizes = {
            "files": first["fileCount"],
            "files_after_changes": second["fileCount"],
            "changes": {k: found[k] for k in ("addedCount", "removedCount", "changedCount")},
        }
        return sizes, {name: summary(values) for name, values in samples.items()}
    finally:
        client.close()
        while driver.execute_query(CLEAN_FILES, scope).records[0]["n"]:
            pass
        driver.execute_query(CLEAN_WORKSPACE, scope)


def ratios_of(rows: dict[str, dict[str, float]]) -> dict[str, float]:
    base = rows["baseline: count (Cypher)"]["median_ms"]
    read = rows["read paths+hashes (Cypher)"]["median_ms"]
    ratios = {
        f"{name} / count p50": round(row["median_ms"] / base, 2) for name, row in rows.items()
    }
    ratios["snapshot / read paths+hashes p50"] = round(
        rows["snapshot (GraphQL)"]["median_ms"] / read, 2
    )
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--changes", type=int, default=100)
    parser.add_argument("--port", type=int, default=0, help="API port (0: a free one)")
    args = parser.parse_args()
    settings = load_settings()
    issued = asyncio.run(
        create_key(settings, client="bench-workspaces", role=Role.AGENT, agent_name="bench")
    )
    os.environ.setdefault("AGENTMEM_EMBEDDING_WORKER_IN_PROCESS", "false")  # as bench/lineage
    args.port = args.port or free_port()
    server = serve_api(args.port)
    auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
    try:
        with GraphDatabase.driver(settings.neo4j_uri, auth=auth) as driver:
            version = driver.get_server_info().agent
            connect = partial(GraphQLClient, args.port, issued.secret)
            sizes, rows = measure(settings, driver, connect, args)
    finally:
        server.terminate()
        server.wait(timeout=30)
    # Shared machines: the load says how busy the cores were while the figures were taken.
    load = {"load_average_1m_at_end": round(os.getloadavg()[0], 2)}
    report(
        "workspaces",
        sizes=sizes,
        rows=rows,
        ratios=ratios_of(rows),
        neo4j_server=version,
        extra=load,
    )


if __name__ == "__main__":
    main()
