"""The `agentmem` command: run the service, manage local servers, migrate, keys, schema, bench."""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from app.cli.constraints import add_constraints_parser, run_constraints
from app.cli.importer import add_import_parser, run_import
from app.cli.keys import add_expiry_options, add_keys_parser, expiry_from, run_keys
from app.cli.mcp import add_mcp_parser, run_mcp
from app.cli.snapshots import add_snapshots_parser, run_client_snapshots
from app.settings import Settings, load_settings

REPO = Path(__file__).resolve().parents[2]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agentmem", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("up", help="start local Neo4j and S3, migrate, serve the API")
    commands.add_parser("serve", help="serve the API only (Neo4j and S3 must be reachable)")
    services = commands.add_parser("services", help="the local Neo4j and S3 servers")
    services.add_argument("action", choices=["start", "stop"])
    commands.add_parser("migrate", help="apply cypher/schema migrations")
    export = commands.add_parser("export-schema", help="write the GraphQL schema (SDL)")
    export.add_argument("--output", type=Path, default=REPO / "schema.graphql")
    key = commands.add_parser("create-key", help="create an API key (shown once)")
    key.add_argument("--client", required=True, help="client name; created if new")
    key.add_argument("--role", default="agent", choices=["agent", "reviewer", "analyst", "admin"])
    key.add_argument("--agent-name", default=None)
    add_expiry_options(key)
    add_keys_parser(commands)
    add_constraints_parser(commands)
    demo = commands.add_parser("demo", help="generate a realistic demo client (plans, assets...)")
    demo.add_argument("--client", required=True, help="client name; created if new")
    demo.add_argument("--plans", type=int, required=True, help="plans (~107 nodes each)")
    demo.add_argument("--seed", type=int, default=7)
    demo.add_argument("--no-artifacts", action="store_true", help="store nothing in S3")
    bench = commands.add_parser("bench", help="run a benchmark from bench/")
    bench.add_argument("name", help="benchmark name, e.g. plan_read")
    commands.add_parser(
        "test", help="start local services (the suite's own Neo4j) and run the test suite"
    )
    reembed = commands.add_parser(
        "reembed", help="build a model's memory index (search switches once it is complete)"
    )
    reembed.add_argument("--all", action="store_true", help="re-embed every searchable record")
    reembed.add_argument("--model", default=None, help="folder or package (default: the setting)")
    reembed.add_argument("--client-id", default=None, help="only this client's index")
    reembed.add_argument("--limit", type=int, default=None, help="stop after N (run again: resume)")
    commands.add_parser("embed-worker", help="run the embedding worker as its own process")
    sweep = commands.add_parser("sweep", help="purge expired memory records now")
    sweep.add_argument("--client-id", default=None, help="only this client's (default: all)")
    add_snapshots_parser(commands)
    add_import_parser(commands)
    add_mcp_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    # Options after `test` go to pytest and after `bench NAME` to the benchmark.
    args, passthrough = _parser().parse_known_args(argv)
    if passthrough and args.command not in {"test", "bench"}:
        _parser().error(f"unrecognized arguments: {' '.join(passthrough)}")
    args.passthrough = passthrough
    if args.command == "export-schema":
        return _export_schema(args.output)
    settings = load_settings()
    handlers: dict[str, Callable[[Settings, argparse.Namespace], int]] = {
        "up": _up,
        "serve": _serve,
        "services": _services,
        "migrate": _migrate,
        "create-key": _create_key,
        "keys": run_keys,
        "constraints": run_constraints,
        "demo": _demo,
        "bench": _bench,
        "test": _test,
        "reembed": _reembed,
        "embed-worker": _embed_worker,
        "sweep": _sweep,
        "client-snapshots": run_client_snapshots,
        "import": run_import,
        "mcp": run_mcp,
    }
    return handlers[args.command](settings, args)


def _reembed(settings: Settings, args: argparse.Namespace) -> int:
    from app.cli.index import reembed_all
    from app.cli.reembed import build

    if args.limit is not None and args.limit < 1:
        raise SystemExit("reembed: --limit must be at least 1")
    if args.all:
        return asyncio.run(reembed_all(settings))
    return asyncio.run(
        build(settings, model=args.model, client_id=args.client_id, limit=args.limit)
    )


def _embed_worker(settings: Settings, args: argparse.Namespace) -> int:
    from app.cli.index import run_worker

    try:
        return asyncio.run(run_worker(settings))
    except KeyboardInterrupt:
        return 0


def _sweep(settings: Settings, args: argparse.Namespace) -> int:
    from app.runtime.background import run_sweep

    summary = asyncio.run(run_sweep(settings, client_id=args.client_id))
    print(
        f"purged {summary['purged']} expired memory records ({summary['versions']} versions, "
        f"{summary['objects']} stored objects) of {summary['clients']} clients "
        f"in {summary['batches']} batches"
        + (f"; error: {summary['error']}" if summary["error"] else "")
    )
    return 1 if summary["error"] else 0


def _export_schema(output: Path) -> int:
    from app.api.schema import schema

    output.write_text(schema.as_str() + "\n", encoding="utf-8")
    print(f"wrote {output}")
    return 0


def _up(settings: Settings, args: argparse.Namespace) -> int:
    from app.api.edge.graphiql_assets import provision_graphiql_assets
    from app.cli.up import DEMO_CLIENT, demo_data, demo_key, print_banner
    from app.devenv.servers import start_local_services, stop_local_services
    from app.web.serve import serve

    started = start_local_services(settings)
    try:
        provision_graphiql_assets(settings)
        key = asyncio.run(demo_key(settings))
        asyncio.run(demo_data(settings))
        print_banner(settings, key)
        serve(settings, graphiql_key=key, guide_client=DEMO_CLIENT)
    finally:
        stop_local_services(settings, only=started)
    return 0


def _serve(settings: Settings, args: argparse.Namespace) -> int:
    from app.api.edge.graphiql_assets import provision_graphiql_assets
    from app.web.serve import serve

    provision_graphiql_assets(settings)
    serve(settings)
    return 0


def _services(settings: Settings, args: argparse.Namespace) -> int:
    from app.devenv.servers import start_local_services, stop_local_services

    if args.action == "start":
        start_local_services(settings)
    else:
        stop_local_services(settings)
    return 0


def _migrate(settings: Settings, args: argparse.Namespace) -> int:
    from app.cli.admin import run_migrations

    report = asyncio.run(run_migrations(settings))
    print(f"applied {report.applied or 'nothing'}; schema version {report.current_version}")
    return 0


def _create_key(settings: Settings, args: argparse.Namespace) -> int:
    from app.cli.admin import create_key
    from app.domain.kernel.errors import AppError
    from app.model.enums import Role

    try:
        expires_at = expiry_from(args)
    except AppError as error:
        print(f"create-key: {error.message}", file=sys.stderr)
        return 2
    issued = asyncio.run(
        create_key(
            settings,
            client=args.client,
            role=Role(args.role),
            agent_name=args.agent_name,
            expires_at=expires_at,
        )
    )
    expiry = f" expires_at={expires_at.isoformat()}" if expires_at else ""
    print(f"client_id={issued.principal.client_id} role={args.role} key_id={issued.key_id}{expiry}")
    print(issued.secret)
    return 0


def _demo(settings: Settings, args: argparse.Namespace) -> int:
    from app.demo.generator import run_demo
    from app.domain.kernel.errors import AppError

    if args.plans < 1:
        print("--plans must be at least 1", file=sys.stderr)
        return 2
    try:
        summary = asyncio.run(
            run_demo(
                settings,
                client=args.client,
                plans=args.plans,
                seed=args.seed,
                with_artifacts=not args.no_artifacts,
            )
        )
    except AppError as error:
        print(f"demo: {error}", file=sys.stderr)
        return 1
    print(
        f"client {args.client} (client_id={summary.client_id}), seed {args.seed}: "
        f"{summary.plans} plans, {summary.nodes:,} nodes, {summary.relationships:,} relationships, "
        f"{summary.uploads:,} S3 objects in {summary.seconds:.1f} s "
        f"({summary.nodes_per_second:,.0f} nodes/s; S3 {summary.upload_seconds:.1f} s, "
        f"Neo4j {summary.graph_seconds:.1f} s)"
    )
    print("  " + ", ".join(f"{label} {count:,}" for label, count in summary.nodes_by_label.items()))
    for line in summary.samples.lines():
        print("  " + line)
    print(f"API key: bash app/services/env.sh create-key --client {args.client} --role analyst")
    return 0


def _bench(settings: Settings, args: argparse.Namespace) -> int:
    script = REPO / "bench" / f"{args.name}.py"
    if not script.exists():
        available = sorted(p.stem for p in (REPO / "bench").glob("*.py") if p.stem[0] != "_")
        print(f"no benchmark {args.name!r}; available: {', '.join(available)}", file=sys.stderr)
        return 2
    return subprocess.call([sys.executable, str(script), *args.passthrough], cwd=REPO)


def _test(settings: Settings, args: argparse.Namespace) -> int:
    from app.api.edge.graphiql_assets import provision_graphiql_assets
    from app.devenv.neo4j import clear_stopped_database
    from app.devenv.servers import (
        say,
        start_local_services,
        stop_local_services,
        suite_environment,
    )

    # The suite (and pytest, which inherits the environment) use their own local Neo4j.
    suite = suite_environment(settings)
    os.environ.update(suite)
    settings = load_settings()
    if suite and clear_stopped_database(settings):
        # Starting it here: begin empty, or every run's data piles up (2 GB after a few
        # hundred runs) and the suite slows.
        say("the suite's Neo4j starts with an empty database")
    started = start_local_services(settings)
    provision_graphiql_assets(settings)
    try:
        command = [sys.executable, "-m", "pytest", *args.passthrough]
        return subprocess.call(command, cwd=REPO)
    finally:
        stop_local_services(settings, only=started)
