"""Snapshot manifests and their diff, by hashes (seed 001's open question "hash vs diff"): a
manifest maps each live path to the SHA-256 of its bytes, and is itself stored under its own
SHA-256. Two snapshots with the same manifest hash are identical without reading anything; two
others differ exactly at the paths whose hashes differ. No content is ever compared or stored
twice: the bytes are content-addressed, so a snapshot costs one manifest, whatever it holds.

The manifest is canonical JSON ({"format": ..., "files": {path: sha256}}, keys sorted, no
spaces), so equal file sets give equal bytes and equal hashes, in any workspace."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

FORMAT = "agentmem.workspace-manifest/1"
MAX_CHANGES = 10_000


@dataclass(frozen=True)
class Manifest:
    files: dict[str, str]  # path -> sha256
    data: bytes
    sha256: str


@dataclass(frozen=True)
class PathChange:
    """A path that differs: before is null for an added path, after for a removed one."""

    path: str
    before: str | None
    after: str | None


@dataclass(frozen=True)
class ManifestDiff:
    identical: bool
    added: list[PathChange]
    removed: list[PathChange]
    changed: list[PathChange]
    added_count: int
    removed_count: int
    changed_count: int
    truncated: bool  # some list holds only its first `first` paths


def manifest_of(pairs: list[Any]) -> Manifest:
    """The manifest of (path, sha256) pairs."""
    files = {str(path): str(sha256) for path, sha256 in pairs}
    data = encode(files)
    return Manifest(files, data, hashlib.sha256(data).hexdigest())


def encode(files: dict[str, str]) -> bytes:
    body = {"format": FORMAT, "files": files}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def decode(data: bytes) -> dict[str, str]:
    body = json.loads(data)
    if body.get("format") != FORMAT:
        raise ValueError(f"not a workspace manifest: format {body.get('format')!r}")
    files: dict[str, str] = body["files"]
    return files


def diff(
    before: dict[str, str], after: dict[str, str], *, prefix: str = "", first: int = 1_000
) -> ManifestDiff:
    """Paths under `prefix` added, removed and changed from `before` to `after`, each list in
    path order and cut at `first` (the counts are whole)."""
    old = {p: h for p, h in before.items() if p.startswith(prefix)}
    new = {p: h for p, h in after.items() if p.startswith(prefix)}
    added = [PathChange(p, None, new[p]) for p in sorted(new.keys() - old.keys())]
    removed = [PathChange(p, old[p], None) for p in sorted(old.keys() - new.keys())]
    both = sorted(p for p in old.keys() & new.keys() if old[p] != new[p])
    changed = [PathChange(p, old[p], new[p]) for p in both]
    lists = (added, removed, changed)
    return ManifestDiff(
        identical=not any(lists),
        added=added[:first],
        removed=removed[:first],
        changed=changed[:first],
        added_count=len(added),
        removed_count=len(removed),
        changed_count=len(changed),
        truncated=any(len(found) > first for found in lists),
    )


def same(before_sha256: str, after_sha256: str) -> ManifestDiff | None:
    """The diff of two manifests known by their hashes alone: none when the hashes are equal."""
    if before_sha256 != after_sha256:
        return None
    return ManifestDiff(True, [], [], [], 0, 0, 0, False)
