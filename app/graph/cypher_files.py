"""Loads Cypher kept in files under cypher/: schema migrations and named queries."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

CYPHER_DIR = Path(__file__).resolve().parents[2] / "cypher"
MIGRATION_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.cypher$")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    statements: tuple[str, ...]
    checksum: str


def split_statements(text: str) -> tuple[str, ...]:
    """Statements end with ';' at the end of a line; '//' comment lines are dropped."""
    lines = [line for line in text.splitlines() if not line.strip().startswith("//")]
    chunks = re.split(r";\s*$", "\n".join(lines), flags=re.MULTILINE)
    return tuple(chunk.strip() for chunk in chunks if chunk.strip())


def load_migrations(directory: Path | None = None) -> list[Migration]:
    folder = directory or CYPHER_DIR / "schema"
    migrations = []
    for path in sorted(folder.glob("*.cypher")):
        match = MIGRATION_NAME.match(path.name)
        if not match:
            raise ValueError(f"{path.name}: migration files are named NNNN_snake_case.cypher")
        text = path.read_text(encoding="utf-8")
        migrations.append(
            Migration(
                version=int(match.group(1)),
                name=match.group(2),
                statements=split_statements(text),
                checksum=hashlib.sha256(text.encode()).hexdigest(),
            )
        )
    versions = [m.version for m in migrations]
    if len(set(versions)) != len(versions):
        raise ValueError(f"duplicate migration versions in {folder}: {versions}")
    return migrations


@cache
def named_query(name: str) -> str:
    """The text of cypher/queries/{name}.cypher (the same file analysts run in Neo4j Browser)."""
    if not re.fullmatch(r"[a-z0-9_]+", name):
        raise ValueError(f"bad query name {name!r}")
    return (CYPHER_DIR / "queries" / f"{name}.cypher").read_text(encoding="utf-8")


def api_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """`params` for running a query file as the API does: with `graph` false. The graph-shaped
    files end with a `graph` column listing the records they found as node values, for Neo4j
    Browser to draw (analysts set `:param graph => true`); the API reads only the map columns,
    and with `graph` false that column is null and costs nothing (nodes would carry their
    embeddings)."""
    return {**params, "graph": False}
