"""`agentmem keys list|revoke|rotate` and the expiry options of `create-key` (the driver and
domain modules are imported when a command runs, as in app/cli/commands.py)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import UTC, datetime
from typing import Any

from app.domain.kernel.errors import AppError, ValidationFailed
from app.settings import Settings

COLUMNS = (
    *("id", "prefix", "role", "agent_name"),
    *("created_at", "expires_at", "status", "last_used_at"),
)


def add_expiry_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--expires-in", default=None, help="e.g. 30d, 12h, 90m, 3600s")
    group.add_argument("--expires-at", default=None, help="ISO 8601, e.g. 2027-01-31T00:00:00Z")


def add_keys_parser(commands: Any) -> None:
    keys = commands.add_parser("keys", help="list, revoke or rotate API keys")
    actions = keys.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help="a client's keys (never their secrets)")
    listing.add_argument("--client", required=True, help="client name")
    revoke = actions.add_parser("revoke", help="refuse a key from now on (within a second)")
    revoke.add_argument("key_id")
    rotate = actions.add_parser(
        "rotate",
        help="a new secret for a key; the old one is revoked (its expiry kept unless given)",
    )
    rotate.add_argument("key_id")
    add_expiry_options(rotate)


def expiry_from(args: argparse.Namespace) -> datetime | None:
    from app.domain.keys import expires_in

    if args.expires_in is not None:
        return expires_in(args.expires_in)
    if args.expires_at is None:
        return None
    try:
        moment = datetime.fromisoformat(args.expires_at.replace("Z", "+00:00"))
    except ValueError as error:
        raise ValidationFailed(f"--expires-at {args.expires_at!r} is not ISO 8601") from error
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def run_keys(settings: Settings, args: argparse.Namespace) -> int:
    from app.cli import admin

    try:
        if args.action == "list":
            _print_keys(asyncio.run(admin.list_keys(settings, client=args.client)))
        elif args.action == "revoke":
            key = asyncio.run(admin.revoke_key(settings, key_id=args.key_id))
            print(f"revoked key_id={key['id']} ({key['prefix']}...) at {key['revoked_at']}")
        else:
            issued = asyncio.run(
                admin.rotate_key(settings, key_id=args.key_id, expires_at=expiry_from(args))
            )
            print(f"key_id={issued.key_id} replaces {args.key_id} (now revoked)")
            print(issued.secret)
    except AppError as error:
        print(f"keys {args.action}: {error.message}", file=sys.stderr)
        return 1
    return 0


def _status(key: dict[str, Any]) -> str:
    from app.domain.keys import key_status

    return key_status(key.get("revoked"), key.get("expires_at"), datetime.now(UTC)).value


def _print_keys(keys: list[dict[str, Any]]) -> None:
    rows = [[str(key.get(c) if c != "status" else _status(key)) for c in COLUMNS] for key in keys]
    widths = [max([len(c), *(len(r[i]) for r in rows)]) for i, c in enumerate(COLUMNS)]
    for row in [list(COLUMNS), *rows]:
        print("  ".join(value.ljust(width) for value, width in zip(row, widths, strict=True)))
