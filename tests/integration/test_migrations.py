"""Migrations against the real Neo4j: applying twice changes nothing; a bad one stops start-up."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from neo4j import AsyncGraphDatabase

from app.graph.cypher_files import Migration, load_migrations
from app.graph.executor import GraphExecutor
from app.graph.migrations import MigrationError, MigrationReport, migrate
from app.settings import Settings


def schema_state(session: Any) -> tuple[list[Any], list[Any], list[Any]]:
    constraints = sorted(r["name"] for r in session.run("SHOW CONSTRAINTS YIELD name"))
    indexes = sorted(r["name"] for r in session.run("SHOW INDEXES YIELD name"))
    versions = sorted(
        (r["v"], r["c"], str(r["t"]))
        for r in session.run(
            "MATCH (m:SchemaMigration) RETURN m.version AS v, m.checksum AS c, m.applied_at AS t"
        )
    )
    return constraints, indexes, versions


def run_migrate(settings: Settings, migrations: list[Migration] | None = None) -> MigrationReport:
    return asyncio.run(migrate_once(settings, migrations))


async def migrate_once(
    settings: Settings, migrations: list[Migration] | None = None
) -> MigrationReport:
    """One process's migration: its own driver, as at start-up."""
    driver = AsyncGraphDatabase.driver(
        settings.neo4j_uri,
        auth=(settings.neo4j_user, settings.neo4j_password.get_secret_value()),
    )
    try:
        return await migrate(GraphExecutor(driver, database=settings.neo4j_database), migrations)
    finally:
        await driver.close()


def test_applying_twice_changes_nothing(settings: Settings, neo4j_session: Any) -> None:
    run_migrate(settings)
    before = schema_state(neo4j_session)
    report = run_migrate(settings)
    assert report.applied == []
    assert report.current_version == max(m.version for m in load_migrations())
    assert schema_state(neo4j_session) == before
    assert "plan_id_unique" in before[0] and "plan_client_created" in before[1]
    # The statements themselves are idempotent too, not only skipped by version.
    first = load_migrations()[0]
    renumbered = Migration(version=9001, name="again", statements=first.statements, checksum="x")
    try:
        assert run_migrate(settings, [renumbered]).applied == [9001]
        constraints, indexes, _ = schema_state(neo4j_session)
        assert (constraints, indexes) == before[:2]
    finally:
        neo4j_session.run("MATCH (m:SchemaMigration {version: 9001}) DELETE m")


def test_edited_or_failing_migration_stops_with_clear_message(settings: Settings) -> None:
    applied = load_migrations()[0]
    edited = Migration(applied.version, applied.name, applied.statements, checksum="edited")
    with pytest.raises(MigrationError, match="was changed after it was applied"):
        run_migrate(settings, [edited])
    broken = Migration(9002, "broken", ("CREATE INDEX oops FOR (n:X) ON",), checksum="b")
    with pytest.raises(MigrationError, match="9002_broken, statement 1 failed"):
        run_migrate(settings, [broken])


def test_processes_migrating_at_once_all_start(settings: Settings, neo4j_session: Any) -> None:
    """Replicas starting together migrate together: each finds the others' indexes made under
    it (a concurrent CREATE ... IF NOT EXISTS fails with "equivalent rule already exists")."""
    name = f"race_{uuid.uuid4().hex[:8]}"
    statements = (
        f"CREATE INDEX {name}_x IF NOT EXISTS FOR (n:{name}) ON (n.x)",
        f"CREATE CONSTRAINT {name}_y IF NOT EXISTS FOR (n:{name}) REQUIRE n.y IS UNIQUE",
    )
    racing = Migration(version=9003, name="race", statements=statements, checksum="r")

    async def together() -> list[MigrationReport]:
        return list(await asyncio.gather(*(migrate_once(settings, [racing]) for _ in range(6))))

    try:
        reports = asyncio.run(together())
        assert all(9003 in r.applied + r.already_applied for r in reports)
        constraints, indexes, versions = schema_state(neo4j_session)
        assert f"{name}_x" in indexes and f"{name}_y" in constraints
        assert [v[:2] for v in versions if v[0] == 9003] == [(9003, "r")]  # recorded once
    finally:
        neo4j_session.run(f"DROP INDEX {name}_x IF EXISTS").consume()
        neo4j_session.run(f"DROP CONSTRAINT {name}_y IF EXISTS").consume()
        neo4j_session.run("MATCH (m:SchemaMigration {version: 9003}) DELETE m").consume()
