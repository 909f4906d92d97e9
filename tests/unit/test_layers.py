"""Imports between the packages of app/ go one way: down the layers below, never up, and the
domain's aggregate packages import each other without a loop (their __init__ re-exports would
otherwise fail on a partly imported package)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"

# Low to high: a module may import its own layer and the layers below it. The most specific
# prefix decides a module's layer.
LAYERS: tuple[tuple[str, ...], ...] = (
    # The vocabulary every layer speaks: settings, the model, the request's deadline, typed
    # errors, ids and the principal.
    (
        "app.settings",
        "app.logs",
        "app.request_deadline",
        "app.model",
        "app.domain.kernel.errors",
        "app.domain.kernel.ids",
        "app.domain.kernel.principal",
    ),
    # Neo4j and object storage, and the kernel's repository helpers over them.
    ("app.graph", "app.artifacts", "app.domain.kernel"),
    # The search engine: embedder, worker, search. It knows no aggregate.
    ("app.retrieval",),
    # The aggregates: rules, repositories and their Cypher. They may search (retrieval).
    ("app.domain",),
    # Wiring: settings -> driver, object storage, embedder, background work.
    ("app.runtime",),
    # GraphQL: types, resolvers, the read path and the HTTP edge of GraphQL.
    ("app.api",),
    # Other doors to the same schema: MCP (tools and resources run as GraphQL root fields).
    ("app.mcp",),
    # Analysts' door: the Neo4j Browser guide and style, made from cypher/queries/ and the model.
    ("app.analyst",),
    # The Starlette app, middleware, key check, readiness, uvicorn.
    ("app.web",),
    # Tools beside the service.
    ("app.demo", "app.devenv"),
    ("app.cli", "app.__main__"),
)

KNOWN_UPWARD: set[tuple[str, str]] = set()


def _sources() -> Iterator[Path]:
    """Every module of the service but the (empty) top package."""
    return (path for path in APP.rglob("*.py") if path != APP / "__init__.py")


def _module_name(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _exists(module: str) -> bool:
    path = APP.parent.joinpath(*module.split("."))
    return path.is_dir() or path.with_suffix(".py").is_file()


def _imports(path: Path) -> Iterator[str]:
    """Every app module or package this file imports, at any depth of its code."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not node.module.startswith("app."):
                continue
            for alias in node.names:
                named = f"{node.module}.{alias.name}"
                yield named if _exists(named) else node.module
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith("app."))


def _unit(module: str) -> tuple[str, int]:
    """The most specific layer prefix of `module`, and its layer."""
    found = [
        (prefix, level)
        for level, prefixes in enumerate(LAYERS)
        for prefix in prefixes
        if module == prefix or module.startswith(prefix + ".")
    ]
    assert found, f"{module} is in no layer: add it to LAYERS"
    return max(found, key=lambda item: len(item[0]))


def _aggregate(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] == ["app", "domain"] and len(parts) > 2 and parts[2] != "kernel":
        return parts[2]
    return None


def _edges() -> set[tuple[str, str]]:
    return {
        (_module_name(path), target)
        for path in _sources()
        for target in _imports(path)
        if target != _module_name(path)
    }


def test_every_module_has_a_layer() -> None:
    for path in _sources():
        _unit(_module_name(path))


def _upward() -> set[tuple[str, str]]:
    """(importing module, imported unit or aggregate package) for each import up the layers."""
    found = set()
    for source, target in _edges():
        (_, low), (unit, high) = _unit(source), _unit(target)
        if high > low:
            aggregate = _aggregate(target)
            found.add((source, f"app.domain.{aggregate}" if aggregate else unit))
    return found


def test_imports_point_down_the_layers() -> None:
    upward = _upward()
    assert upward - KNOWN_UPWARD == set(), "imports up the layers"
    assert KNOWN_UPWARD - upward == set(), "fixed: remove these from KNOWN_UPWARD"


def test_no_two_units_import_each_other() -> None:
    known = {source for source, _ in KNOWN_UPWARD}
    pairs = {(_unit(s)[0], _unit(t)[0]) for s, t in _edges() if s not in known}
    loops = {(a, b) for a, b in pairs if a != b and (b, a) in pairs}
    assert loops == set()


def test_aggregates_import_each_other_without_a_loop() -> None:
    needs: dict[str, set[str]] = {}
    for source, target in _edges():
        mine, theirs = _aggregate(source), _aggregate(target)
        if mine and theirs and mine != theirs:
            needs.setdefault(mine, set()).add(theirs)

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for step in needs.get(start, set()) - seen:
            if step == goal or reaches(step, goal, seen | {step}):
                return True
        return False

    loops = sorted(name for name in needs if reaches(name, name, set()))
    assert loops == [], f"aggregates in an import loop: {loops}"


# The query compiler reads a framework-neutral selection (app/graph/selection.py, built by
# app/api/read/selection.py): nothing below the API knows a GraphQL library.
GRAPHQL_LIBRARIES = frozenset({"strawberry", "graphql"})


def _libraries(path: Path) -> Iterator[str]:
    """The top-level package of every absolute import in the file."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module.split(".")[0]
        elif isinstance(node, ast.Import):
            yield from (a.name.split(".")[0] for a in node.names)


def test_the_graph_layer_imports_no_graphql_library() -> None:
    found = {
        (_module_name(path), library)
        for path in (APP / "graph").rglob("*.py")
        for library in _libraries(path)
        if library in GRAPHQL_LIBRARIES
    }
    assert found == set()
