"""`agentmem client-snapshots`: write each client's last completed weekly and monthly snapshot
now, as the API's background job does (the driver and domain modules are imported when the
command runs, as in app/cli/commands.py)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import UTC, datetime
from typing import Any

from app.domain.kernel.errors import AppError, ValidationFailed
from app.model.enums import SCHEDULED_PERIODS
from app.settings import Settings


def add_snapshots_parser(commands: Any) -> None:
    snapshots = commands.add_parser(
        "client-snapshots",
        help="write the last completed weekly and monthly client snapshots that are missing",
    )
    snapshots.add_argument(
        "--period", choices=[p.value for p in SCHEDULED_PERIODS], help="only this period"
    )
    snapshots.add_argument("--client-id", default=None, help="only this client's (default: all)")
    snapshots.add_argument(
        "--at", default=None, help="the windows completed at this instant (ISO 8601; default now)"
    )


def at_from(text: str | None) -> datetime:
    """--at as an aware instant (UTC unless it names a zone); now without it."""
    if text is None:
        return datetime.now(UTC)
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as error:
        raise ValidationFailed(f"--at {text!r} is not ISO 8601", field="at") from error
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def run_client_snapshots(settings: Settings, args: argparse.Namespace) -> int:
    from app.runtime import client_snapshots

    periods = [args.period] if args.period else list(SCHEDULED_PERIODS)
    try:
        done = asyncio.run(
            client_snapshots.run_client_snapshots(
                settings, periods=periods, at=at_from(args.at), client_id=args.client_id
            )
        )
    except AppError as error:
        print(f"client-snapshots: {error.message}", file=sys.stderr)
        return 2
    for snapshot in done:
        print(snapshot.line())
    written = sum(snapshot.written for snapshot in done)
    print(f"wrote {written} snapshots, {len(done) - written} existed")
    return 0
