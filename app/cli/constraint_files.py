"""The file `agentmem constraints export` writes and `import` reads: YAML (with a header saying
how to import it) or JSON, chosen by the file's suffix; the same five keys either way, and
`version` the one the edit starts from (the import's optimistic check)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

from app.domain.kernel.errors import ValidationFailed
from app.model.enums import ConstraintKind

FIELDS = ("document_id", "kind", "title", "version", "content")
SUFFIXES = {".yaml": "yaml", ".yml": "yaml", ".json": "json"}
TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"


class _ContentLoader(yaml.SafeLoader):
    """safe_load without dates: content is JSON, which has none, so `2026-01-31` stays text."""


_ContentLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != TIMESTAMP_TAG]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


@dataclass(frozen=True)
class ConstraintFile:
    kind: ConstraintKind
    content: Any
    document_id: str | None = None
    title: str | None = None
    version: int | None = None


def file_format(path: Path | None) -> str:
    """The format the suffix names (yaml or json); YAML without a file (stdout)."""
    if path is None:
        return "yaml"
    if path.suffix.lower() not in SUFFIXES:
        raise ValidationFailed(
            f"{path}: name a .yaml, .yml or .json file (the suffix picks the format)", field="file"
        )
    return SUFFIXES[path.suffix.lower()]


def dump(data: ConstraintFile, *, fmt: str, client: str, current: int) -> str:
    given = asdict(data) | {"kind": data.kind.value}
    fields = {key: given[key] for key in FIELDS}
    if fmt == "json":
        return json.dumps(fields, indent=2, ensure_ascii=False) + "\n"
    body = yaml.safe_dump(fields, sort_keys=False, allow_unicode=True, width=100)
    return _header(data, client=client, current=current) + body


def _header(data: ConstraintFile, *, client: str, current: int) -> str:
    lines = [
        f"{data.kind.value} document {data.document_id}, version {data.version} of client {client}",
        "Edit content (and title if you like), leave version as it is, then import the file:",
        f'  agentmem constraints import FILE --client {client} --reason "why"',
        "The import is refused if the document got a newer version meanwhile: export it again",
        "and reapply your change.",
    ]
    if data.version != current:
        lines.append(f"Version {current} is the current one: to restore this one, set version")
        lines.append(f"to {current} before importing.")
    return "".join(f"# {line}\n" for line in lines)


def read_file(path: Path) -> ConstraintFile:
    fmt = file_format(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ValidationFailed(f"{path}: cannot read it ({error})", field="file") from None
    return parse(text, fmt=fmt, name=str(path))


def parse(text: str, *, fmt: str, name: str) -> ConstraintFile:
    """The file's fields, checked for shape (the content is checked by its kind's schema when
    imported); VALIDATION naming the key that is wrong."""
    try:
        data = json.loads(text) if fmt == "json" else yaml.load(text, Loader=_ContentLoader)
    except (ValueError, yaml.YAMLError) as error:
        raise ValidationFailed(
            f"{name} is not valid {fmt.upper()}: {error}", field="file"
        ) from None
    if not isinstance(data, dict):
        raise ValidationFailed(f"{name} must hold a mapping of {', '.join(FIELDS)}", field="file")
    unknown = sorted(str(key) for key in data if key not in FIELDS)
    if unknown:
        raise ValidationFailed(
            f"{name}: unknown key {unknown[0]!r}; a constraints file holds {', '.join(FIELDS)}",
            field=unknown[0],
        )
    if "content" not in data:
        raise ValidationFailed(f"{name}: content is missing", field="content")
    return ConstraintFile(
        kind=_kind(data.get("kind"), name),
        content=data["content"],
        document_id=_text(data, "document_id", name),
        title=_text(data, "title", name),
        version=_version(data, name),
    )


def _kind(value: Any, name: str) -> ConstraintKind:
    kinds = [kind.value for kind in ConstraintKind]
    if not isinstance(value, str) or value.lower() not in kinds:
        raise ValidationFailed(f"{name}: kind must be one of {', '.join(kinds)}", field="kind")
    return ConstraintKind(value.lower())


def _text(data: dict[str, Any], key: str, name: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise ValidationFailed(f"{name}: {key} must be text", field=key)
    return value


def _version(data: dict[str, Any], name: str) -> int | None:
    """Required with a document_id: the version the edit starts from."""
    value = data.get("version")
    if value is None and data.get("document_id") is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValidationFailed(
            f"{name}: version must be the number of the version the file was exported from",
            field="version",
        )
    return value
