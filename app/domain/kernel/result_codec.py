"""Repository results as JSON text and back, exactly: what an idempotent create stores so that a
retry gets the first result (app/domain/kernel/idempotency.py), and the canonical form of a request
that its fingerprint hashes.

Results are plain values (app.graph.values.plain), datetimes, enums and the repositories' own
dataclasses; anything else is refused when stored (TypeError), never silently changed. A map of
the result that has a "$t" key of its own (a caller's JSON content may) is stored escaped, as a
"map" tag around it, so it comes back exactly as it was.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import importlib
import json
import sys
from datetime import date, datetime
from enum import Enum
from typing import Any

TAG = "$t"
ATOMS = (str, int, float, bool, type(None))


def encode(value: Any) -> str:
    return json.dumps(_tagged(value), separators=(",", ":"))


def decode(text: str) -> Any:
    return _untagged(json.loads(text))


def fingerprint(*parts: Any) -> str:
    """SHA-256 of the parts' canonical JSON (keys sorted; inputs as their field values)."""
    text = json.dumps(_canonical(parts), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _class_path(value: Any) -> str:
    kind = type(value)
    return f"{kind.__module__}:{kind.__qualname__}"


def _tagged(value: Any) -> Any:
    if isinstance(value, ATOMS):
        return value
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise TypeError("a stored result's maps have text keys")
        fields = {key: _tagged(item) for key, item in value.items()}
        return {TAG: "map", "v": fields} if TAG in value else fields
    if isinstance(value, list | tuple):
        items = [_tagged(item) for item in value]
        return items if isinstance(value, list) else {TAG: "tuple", "v": items}
    if isinstance(value, datetime):
        return {TAG: "datetime", "v": value.isoformat()}
    if isinstance(value, date):
        return {TAG: "date", "v": value.isoformat()}
    if isinstance(value, Enum):
        return {TAG: "enum", "c": _class_path(value), "v": value.value}
    if isinstance(value, bytes):
        return {TAG: "bytes", "v": base64.b64encode(value).decode()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _tagged(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {TAG: "dataclass", "c": _class_path(value), "v": fields}
    raise TypeError(f"cannot store a {type(value).__name__} as a result")


def _load_class(path: str) -> Any:
    module, _, name = path.partition(":")
    if not module.startswith("app."):
        raise TypeError(f"stored results hold only the service's own classes, not {path}")
    try:
        found: Any = importlib.import_module(module)
        for part in name.split("."):
            found = getattr(found, part)
        return found
    except (ImportError, AttributeError):
        # A result stored before its class moved (a retry across a deploy): the class is
        # found again by its name among the service's loaded modules, when that is unique.
        return _moved_class(path, name)


def _moved_class(path: str, name: str) -> Any:
    found = set()
    for module_name, loaded in list(sys.modules.items()):
        if not module_name.startswith("app.") or loaded is None:
            continue
        candidate: Any = loaded
        for part in name.split("."):
            candidate = getattr(candidate, part, None)
        if isinstance(candidate, type) and candidate.__qualname__ == name:
            found.add(candidate)
    if len(found) != 1:
        raise TypeError(f"a stored result names {path}, which no longer exists")
    return found.pop()


def _untagged(value: Any) -> Any:
    if isinstance(value, list):
        return [_untagged(item) for item in value]
    if not isinstance(value, dict):
        return value
    kind = value.get(TAG)
    if kind is None:
        return {key: _untagged(item) for key, item in value.items()}
    if kind == "map":
        return {key: _untagged(item) for key, item in value["v"].items()}
    if kind == "tuple":
        return tuple(_untagged(item) for item in value["v"])
    if kind == "datetime":
        return datetime.fromisoformat(value["v"])
    if kind == "date":
        return date.fromisoformat(value["v"])
    if kind == "bytes":
        return base64.b64decode(value["v"])
    if kind == "enum":
        return _load_class(value["c"])(value["v"])
    if kind == "dataclass":
        return _load_class(value["c"])(**{k: _untagged(v) for k, v in value["v"].items()})
    raise TypeError(f"unknown stored value tag {kind!r}")


def _canonical(value: Any) -> Any:
    if isinstance(value, ATOMS):
        return value
    if isinstance(value, dict):
        return {str(key): _canonical(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [_canonical(item) for item in value]
        return sorted(items, key=repr) if isinstance(value, set | frozenset) else items
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime | date):
        return value.isoformat()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _canonical(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return repr(value)  # e.g. strawberry.UNSET: stable for one kind of value
