"""`agentmem constraints export|import|list|schema`: a client's constraint documents as files
people edit, each import a new version under the API's optimistic check (refused when the
document got a version after the exported one). What runs against the store is in
constraint_store.py, imported when a command runs (as in app/cli/commands.py); the file format
in constraint_files.py."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from app.cli.constraint_files import dump, file_format, read_file
from app.domain.kernel.errors import AppError, Conflict
from app.model.enums import ConstraintKind
from app.settings import Settings

KINDS = [kind.value for kind in ConstraintKind]
LIST_COLUMNS = ("kind", "title", "current_version", "updated_at", "id")


def add_constraints_parser(commands: Any) -> None:
    constraints = commands.add_parser(
        "constraints", help="export a constraint document to a file, import an edited one"
    )
    actions = constraints.add_subparsers(dest="action", required=True)
    export = actions.add_parser("export", help="a document's version as YAML or JSON")
    export.add_argument("--client", required=True, help="client name")
    export.add_argument("--kind", required=True, choices=KINDS)
    export.add_argument("--version", type=int, default=None, help="default: the current one")
    export.add_argument("--output", type=Path, default=None, help=".yaml/.yml/.json; else stdout")
    imported = actions.add_parser("import", help="an edited export as the document's new version")
    imported.add_argument("file", type=Path, help="a .yaml/.yml/.json file")
    imported.add_argument("--client", required=True, help="client name")
    imported.add_argument("--reason", required=True, help="why (kept with the version)")
    listing = actions.add_parser("list", help="a client's documents and their current versions")
    listing.add_argument("--client", required=True, help="client name")
    schema = actions.add_parser("schema", help="the JSON Schema of a kind's content")
    schema.add_argument("kind", choices=KINDS)


def run_constraints(settings: Settings, args: argparse.Namespace) -> int:
    handlers = {"export": _export, "import": _import, "list": _list, "schema": _schema}
    try:
        handlers[args.action](settings, args)
    except AppError as error:
        print(f"constraints {args.action}: {error.code}: {error.message}", file=sys.stderr)
        if isinstance(error, Conflict) and args.action == "import":
            print(
                f"export it again (agentmem constraints export --client {args.client} --kind "
                "KIND --output FILE), reapply your change to that file and import it",
                file=sys.stderr,
            )
        return 1
    return 0


def _export(settings: Settings, args: argparse.Namespace) -> None:
    from app.cli.constraint_store import export_document

    fmt = file_format(args.output)
    exported, current = asyncio.run(
        export_document(
            settings, client=args.client, kind=ConstraintKind(args.kind), version=args.version
        )
    )
    text = dump(exported, fmt=fmt, client=args.client, current=current)
    if args.output is None:
        sys.stdout.write(text)
        return
    args.output.write_text(text, encoding="utf-8")
    print(
        f"wrote {args.output}: {exported.kind.value} document {exported.document_id}, "
        f"version {exported.version} (current {current})"
    )


def _import(settings: Settings, args: argparse.Namespace) -> None:
    from app.cli.constraint_store import import_document

    given = read_file(args.file)
    imported = asyncio.run(
        import_document(settings, client=args.client, given=given, reason=args.reason)
    )
    document, kind = imported.document, given.kind.value
    number = document["current_version"]
    if not imported.saved:
        print(f"{kind} document {document['id']} unchanged: version {number} holds this content")
    else:
        print(f"{kind} document {document['id']}: version {number} made from {args.file}")


def _list(settings: Settings, args: argparse.Namespace) -> None:
    from app.cli.constraint_store import list_documents

    documents = asyncio.run(list_documents(settings, client=args.client))
    rows = [[_cell(document.get(column)) for column in LIST_COLUMNS] for document in documents]
    widths = [max([len(c), *(len(r[i]) for r in rows)]) for i, c in enumerate(LIST_COLUMNS)]
    for row in [list(LIST_COLUMNS), *rows]:
        print("  ".join(value.ljust(width) for value, width in zip(row, widths, strict=True)))


def _cell(value: Any) -> str:
    return value.isoformat(timespec="seconds") if isinstance(value, datetime) else str(value)


def _schema(settings: Settings, args: argparse.Namespace) -> None:
    from app.domain.constraints import json_schema

    print(json.dumps(json_schema(ConstraintKind(args.kind)), indent=2))
