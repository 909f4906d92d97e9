"""Applies cypher/schema migrations in order and records each applied version in the graph."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from neo4j.exceptions import Neo4jError

from app.graph.cypher_files import Migration, load_migrations
from app.graph.executor import GraphExecutor

log = logging.getLogger(__name__)

APPLIED_VERSIONS = "MATCH (m:SchemaMigration) RETURN m.version AS version, m.checksum AS checksum"
RECORD_VERSION = """
MERGE (m:SchemaMigration {version: $version})
ON CREATE SET m.name = $name, m.checksum = $checksum, m.applied_at = datetime()
"""
# What a statement gets when another process migrating at the same time (replicas starting
# together) created the same index or constraint first, IF NOT EXISTS notwithstanding.
CREATED_MEANWHILE = "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"


class MigrationError(RuntimeError):
    """A migration failed or was edited after it was applied; start-up must stop."""


@dataclass(frozen=True)
class MigrationReport:
    applied: list[int]
    already_applied: list[int]

    @property
    def current_version(self) -> int:
        return max(self.applied + self.already_applied, default=0)


async def migrate(
    graph: GraphExecutor, migrations: list[Migration] | None = None
) -> MigrationReport:
    pending = migrations if migrations is not None else load_migrations()
    applied_before = {r["version"]: r["checksum"] for r in await graph.read(APPLIED_VERSIONS)}
    applied, skipped = [], []
    for migration in pending:
        if migration.version in applied_before:
            if applied_before[migration.version] != migration.checksum:
                raise MigrationError(
                    f"migration {migration.version:04d}_{migration.name} was changed after it was "
                    "applied; add a new migration file instead of editing an applied one"
                )
            skipped.append(migration.version)
            continue
        await _apply(graph, migration)
        applied.append(migration.version)
    return MigrationReport(applied=applied, already_applied=skipped)


async def _apply(graph: GraphExecutor, migration: Migration) -> None:
    label = f"{migration.version:04d}_{migration.name}"
    log.info("applying migration %s (%d statements)", label, len(migration.statements))
    for number, statement in enumerate(migration.statements, start=1):
        try:
            await graph.write(statement)
        except Exception as error:
            if _created_meanwhile(error, statement):
                continue
            raise MigrationError(
                f"migration {label}, statement {number} failed: {error}\n{statement}"
            ) from error
    await graph.write(
        RECORD_VERSION,
        {"version": migration.version, "name": migration.name, "checksum": migration.checksum},
    )


def _created_meanwhile(error: Exception, statement: str) -> bool:
    """What an IF NOT EXISTS statement asks for is there: another process made it."""
    return (
        isinstance(error, Neo4jError)
        and error.code == CREATED_MEANWHILE
        and "IF NOT EXISTS" in statement.upper()
    )
