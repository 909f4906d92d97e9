"""Workspaces end to end over HTTP on the real Neo4j and S3 servers: files by path with
versions, bytes stored once per client under their SHA-256, prefix listing, deletion that keeps
history, snapshots as manifests and their diff by hashes, cycles pointing at what they produced,
typed errors, and isolation (another client's ids behave exactly like missing ones)."""

from __future__ import annotations

import uuid

import httpx

from app.settings import Settings
from tests.integration.conftest import Caller
from tests.integration.workspace_helpers import (
    DELETE,
    LIST,
    READ_BY_ID,
    READ_BY_PATH,
    SNAPSHOT_FILE,
    WORKSPACE,
    WRITE,
    agents_of_one_client,
    b64,
    create,
    diff,
    error_of,
    sha,
    snapshot,
    stored_blobs,
    write,
)

BINARY = bytes(range(256))


def test_files_are_versioned_and_their_bytes_stored_once_per_client(
    alice: Caller, settings: Settings
) -> None:
    workspace = create(alice, "research", description="notes")
    assert workspace["agentName"] == "tester" and workspace["agent"] == {"name": "tester"}
    first = write(alice, workspace["id"], "notes/plan.md", text="# Plan\n")
    assert (first["version"], first["isDeleted"], first["size"]) == (1, False, 7)
    assert first["sha256"] == sha("# Plan\n") and first["mediaType"] == "text/markdown"
    # The same bytes at another path and in another workspace: one object in storage.
    other = create(alice, "scratch")
    write(alice, workspace["id"], "copy.txt", text="# Plan\n", mediaType="text/plain")
    write(alice, other["id"], "plan.md", text="# Plan\n")
    write(alice, workspace["id"], "data.bin", contentBase64=b64(BINARY))
    assert stored_blobs(settings, alice.client_id) == sorted(
        f"client/{alice.client_id}/workspaces/blobs/{sha(data)}" for data in ("# Plan\n", BINARY)
    )
    second = write(alice, workspace["id"], "notes/plan.md", text="# Plan\n\n1. Read\n")
    retried = write(alice, workspace["id"], "notes/plan.md", text="# Plan\n\n1. Read\n")
    assert second["id"] == first["id"] and second["version"] == 2 and retried == second
    read = alice.data(READ_BY_ID, {"id": first["id"]})["workspaceFile"]
    assert read["text"] == "# Plan\n\n1. Read\n" and read["version"] == 2
    assert [(v["version"], v["text"]) for v in read["versions"]] == [
        (1, "# Plan\n"),
        (2, "# Plan\n\n1. Read\n"),
    ]
    assert read["versions"][0]["author"] == "agent:tester"
    binary = alice.data(READ_BY_PATH, {"ws": workspace["id"], "path": "data.bin"})
    found = binary["workspaceFile"]
    assert found["text"] is None and found["mediaType"] == "application/octet-stream"
    assert httpx.get(found["presignedUrl"], timeout=30).content == BINARY
    counted = alice.data(WORKSPACE, {"id": workspace["id"]})["workspace"]
    assert (counted["fileCount"], counted["totalBytes"]) == (3, 16 + 7 + 256)


def test_listing_by_prefix_in_path_order_with_pages(alice: Caller) -> None:
    workspace = create(alice, "tree")
    for path in ("src/b.py", "src/a.py", "docs/readme.md", "src/sub/c.py", "srcx.txt"):
        write(alice, workspace["id"], path, text=path)
    listed = alice.data(LIST, {"ws": workspace["id"], "prefix": "src/"})["workspaceFiles"]
    assert [f["path"] for f in listed["nodes"]] == ["src/a.py", "src/b.py", "src/sub/c.py"]
    assert listed["totalCount"] == 3
    seen, after = [], None
    while True:
        page = alice.data(LIST, {"ws": workspace["id"], "first": 2, "after": after})
        seen += [f["path"] for f in page["workspaceFiles"]["nodes"]]
        info = page["workspaceFiles"]["pageInfo"]
        if not info["hasNextPage"]:
            break
        after = info["endCursor"]
    assert seen == sorted(seen) and len(seen) == 5


def test_deleting_keeps_history_and_snapshots_resolve(alice: Caller) -> None:
    workspace = create(alice, "history")
    write(alice, workspace["id"], "keep.md", text="keep")
    write(alice, workspace["id"], "change.md", text="before")
    gone = write(alice, workspace["id"], "gone.md", text="bye")
    one = snapshot(alice, workspace["id"], "first")
    assert (one["fileCount"], one["totalBytes"], one["label"]) == (3, 4 + 6 + 3, "first")
    assert {(e["path"], e["sha256"]) for e in one["manifest"]} == {
        ("keep.md", sha("keep")),
        ("change.md", sha("before")),
        ("gone.md", sha("bye")),
    }
    deleted = alice.data(DELETE, {"ws": workspace["id"], "path": "gone.md"})
    tomb = deleted["deleteWorkspaceFile"]
    assert tomb["id"] == gone["id"] and tomb["isDeleted"] and tomb["version"] == 2
    assert tomb["sha256"] is None and tomb["deletedAt"]
    again = alice.data(DELETE, {"ws": workspace["id"], "path": "gone.md"})
    assert again["deleteWorkspaceFile"] == tomb
    never = alice.gql(DELETE, {"ws": workspace["id"], "path": "never.md"})
    assert error_of(never)["code"] == "NOT_FOUND"
    live = alice.data(LIST, {"ws": workspace["id"]})["workspaceFiles"]["nodes"]
    assert [f["path"] for f in live] == ["change.md", "keep.md"]
    every = alice.data(LIST, {"ws": workspace["id"], "deleted": True})["workspaceFiles"]
    assert every["totalCount"] == 3
    history = alice.data(READ_BY_ID, {"id": gone["id"]})["workspaceFile"]
    assert [(v["isDeleted"], v["text"]) for v in history["versions"]] == [
        (False, "bye"),
        (True, None),
    ]
    held = alice.data(SNAPSHOT_FILE, {"id": one["id"], "path": "gone.md"})
    assert held["workspaceSnapshotFile"] == {
        "path": "gone.md",
        "version": 1,
        "sha256": sha("bye"),
        "text": "bye",
    }
    absent = alice.gql(SNAPSHOT_FILE, {"id": one["id"], "path": "never.md"})
    assert error_of(absent)["code"] == "NOT_FOUND"


def test_snapshot_diff_by_hashes(alice: Caller) -> None:
    workspace = create(alice, "diffs")
    for path in ("a.md", "b.md", "src/c.py"):
        write(alice, workspace["id"], path, text=f"{path} v1")
    one = snapshot(alice, workspace["id"])
    same = snapshot(alice, workspace["id"])
    assert same["manifestSha256"] == one["manifestSha256"] and same["id"] != one["id"]
    write(alice, workspace["id"], "b.md", text="b.md v2")
    write(alice, workspace["id"], "src/d.py", text="new")
    alice.data(DELETE, {"ws": workspace["id"], "path": "a.md"})
    now = diff(alice, one["id"])  # against the files now
    two = snapshot(alice, workspace["id"])
    found = diff(alice, one["id"], two["id"])
    assert found["fromSnapshot"]["workspace"]["name"] == "diffs"
    assert found["toSnapshot"] == {"id": two["id"]} and now["toSnapshot"] is None
    assert now["toManifestSha256"] == two["manifestSha256"] == found["toManifestSha256"]
    assert (found["addedCount"], found["removedCount"], found["changedCount"]) == (1, 1, 1)
    assert found["added"] == [{"path": "src/d.py", "before": None, "after": sha("new")}]
    assert found["removed"] == [{"path": "a.md", "before": sha("a.md v1"), "after": None}]
    assert found["changed"] == [{"path": "b.md", "before": sha("b.md v1"), "after": sha("b.md v2")}]
    assert not found["identical"] and not found["truncated"]
    assert {k: now[k] for k in ("added", "removed", "changed")} == {
        k: found[k] for k in ("added", "removed", "changed")
    }
    under = diff(alice, one["id"], two["id"], prefix="src/", first=1)
    assert (under["addedCount"], under["removedCount"], under["changedCount"]) == (1, 0, 0)
    assert diff(alice, one["id"], same["id"])["identical"]
    assert diff(alice, two["id"])["identical"]


def test_bad_input_is_refused_with_a_code_and_the_field(alice: Caller) -> None:
    workspace = create(alice, "strict")
    duplicate = alice.gql(
        'mutation { createWorkspace(input: {name: "strict"}) { id } }',
    )
    assert error_of(duplicate)["code"] == "CONFLICT"
    assert error_of(duplicate)["id"] == workspace["id"]
    cases = [
        ({"path": "../up.md", "text": "x"}, "path"),
        ({"path": "a.md"}, "text"),
        ({"path": "a.md", "text": "x", "contentBase64": "eA=="}, "text"),
        ({"path": "a.md", "contentBase64": "***"}, "content_base64"),
        ({"path": "a.md", "text": "x", "mediaType": "nonsense"}, "media_type"),
    ]
    for given, field in cases:
        body = alice.gql(WRITE, {"input": {"workspaceId": workspace["id"], **given}})
        assert (error_of(body)["code"], error_of(body)["field"]) == ("VALIDATION", field), given
    bad_name = alice.gql('mutation { createWorkspace(input: {name: "a b"}) { id } }')
    assert (error_of(bad_name)["code"], error_of(bad_name)["field"]) == ("VALIDATION", "name")
    files = alice.data(LIST, {"ws": workspace["id"], "deleted": True})["workspaceFiles"]
    assert files["totalCount"] == 0


def test_another_client_s_ids_behave_like_missing_ones(alice: Caller, bob: Caller) -> None:
    workspace = create(alice, "private")
    file = write(alice, workspace["id"], "secret.md", text="secret")
    taken = snapshot(alice, workspace["id"])
    unknown = str(uuid.uuid4())
    reads = [
        ("query($id: ID!) { workspace(id: $id) { id } }", {}),
        ("query($id: ID!) { workspaceFile(id: $id) { id } }", {}),
        ("query($id: ID!) { workspaceSnapshot(id: $id) { id } }", {}),
        ("query($id: ID!) { workspaceFiles(workspaceId: $id) { totalCount } }", {}),
        ("query($id: ID!) { workspaceDiff(from: $id) { identical } }", {}),
        (SNAPSHOT_FILE, {"path": "secret.md"}),
        (DELETE.replace("$ws", "$id"), {"path": "secret.md"}),
        (
            "mutation($id: ID!) { snapshotWorkspace(workspaceId: $id) { id } }",
            {},
        ),
    ]
    owned = {
        "workspace(": workspace["id"],
        "workspaceFile(": file["id"],
        "workspaceSnapshot(": taken["id"],
        "workspaceSnapshotFile(": taken["id"],
        "workspaceDiff(": taken["id"],
    }
    for query, more in reads:
        target = next((i for k, i in owned.items() if k in query), workspace["id"])
        theirs = error_of(bob.gql(query, {"id": target, **more}))
        missing = error_of(bob.gql(query, {"id": unknown, **more}))
        assert theirs["code"] == missing["code"] == "NOT_FOUND", query
        assert theirs["message"].replace(target, unknown) == missing["message"], query
    written = bob.gql(WRITE, {"input": {"workspaceId": workspace["id"], "path": "x", "text": "x"}})
    assert error_of(written)["code"] == "NOT_FOUND"
    assert alice.data(READ_BY_ID, {"id": file["id"]})["workspaceFile"]["version"] == 1


def test_an_agent_writes_only_its_own_workspaces(settings: Settings, api_url: str) -> None:
    owner, other = agents_of_one_client(settings, api_url, "owner", "other")
    workspace = create(owner, "mine")
    write(owner, workspace["id"], "a.md", text="a")
    given = {"workspaceId": workspace["id"], "path": "a.md", "text": "b"}
    body = other.gql(WRITE, {"input": given})
    assert error_of(body)["code"] == "FORBIDDEN"
    assert error_of(other.gql(DELETE, {"ws": workspace["id"], "path": "a.md"}))["code"] == (
        "FORBIDDEN"
    )
    assert (
        other.data(READ_BY_PATH, {"ws": workspace["id"], "path": "a.md"})["workspaceFile"]["text"]
        == "a"
    )
    refused = other.gql(
        'mutation { createWorkspace(input: {name: "x", agentName: "owner"}) { id } }'
    )
    assert error_of(refused)["code"] == "FORBIDDEN"


RECORD_CYCLE = """mutation($input: RecordCycleInput!) {
  recordCycle(input: $input) { id workspaceCues workspace { id name } } }"""
COMPLETE_CYCLE = """mutation($id: ID!, $input: CompleteCycleInput!) {
  completeCycle(id: $id, input: $input) {
    id status files { path version sha256 text producedBy { id } } artifacts { id kind } } }"""
ATTACH = """mutation($id: ID!) {
  attachMemoryArtifact(recordId: $id, kind: "report", contentBase64: "aGk=") { id } }"""
REMEMBER = 'mutation { remember(input: {kind: SEMANTIC, text: "done"}) { id } }'


def test_a_cycle_cues_workspace_paths_and_points_at_what_it_produced(
    alice: Caller, bob: Caller
) -> None:
    workspace = create(alice, "cycles")
    cues = ["report.md", "data/input.csv", "report.md"]
    proposal = {"thoughts": "write the report", "workspaceId": workspace["id"]}
    cycle = alice.data(RECORD_CYCLE, {"input": proposal | {"workspaceCues": cues}})
    recorded = cycle["recordCycle"]
    assert recorded["workspaceCues"] == ["report.md", "data/input.csv"]
    assert recorded["workspace"] == {"id": workspace["id"], "name": "cycles"}
    listed = alice.data(WORKSPACE, {"id": workspace["id"]})["workspace"]["cycles"]
    assert listed == [{"id": recorded["id"], "workspaceCues": ["report.md", "data/input.csv"]}]
    uncued = alice.gql(RECORD_CYCLE, {"input": {"thoughts": "x", "workspaceCues": ["a.md"]}})
    assert (error_of(uncued)["code"], error_of(uncued)["field"]) == ("VALIDATION", "workspace_id")
    foreign = bob.gql(RECORD_CYCLE, {"input": proposal | {"workspaceCues": ["a.md"]}})
    assert error_of(foreign)["code"] == "NOT_FOUND"

    report = write(alice, workspace["id"], "report.md", text="v1")
    record = alice.data(REMEMBER)["remember"]["id"]
    artifact = alice.data(ATTACH, {"id": record})["attachMemoryArtifact"]["id"]
    theirs = write(bob, create(bob, "other")["id"], "x.md", text="x")
    for ids, missing in (
        ({"workspaceFileIds": [theirs["id"]]}, theirs["id"]),
        ({"workspaceFileIds": [report["id"]], "artifactIds": [str(uuid.uuid4())]}, None),
    ):
        body = alice.gql(
            COMPLETE_CYCLE, {"id": recorded["id"], "input": {"status": "SUCCEEDED"} | ids}
        )
        assert error_of(body)["code"] == "NOT_FOUND"
        if missing:
            assert missing in error_of(body)["message"]
    done = alice.data(
        COMPLETE_CYCLE,
        {
            "id": recorded["id"],
            "input": {
                "status": "SUCCEEDED",
                "workspaceFileIds": [report["id"]],
                "artifactIds": [artifact],
            },
        },
    )["completeCycle"]
    write(alice, workspace["id"], "report.md", text="v2")  # the link keeps naming version 1
    again = alice.data(
        "query($id: ID!) { agentCycle(id: $id) { files { version text } } }", {"id": recorded["id"]}
    )["agentCycle"]
    assert done["status"] == "SUCCEEDED"
    assert done["files"] == [
        {
            "path": "report.md",
            "version": 1,
            "sha256": sha("v1"),
            "text": "v1",
            "producedBy": [{"id": recorded["id"]}],
        }
    ]
    assert done["artifacts"] == [{"id": artifact, "kind": "report"}]
    assert again["files"] == [{"version": 1, "text": "v1"}]
