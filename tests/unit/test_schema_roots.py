"""Query and Mutation are assembled from the api packages (app/api/schema.py): each package's
QUERIES and MUTATIONS are in the schema, every root type of app/api is named by its package, and
the order is fixed."""

import pkgutil
import sys
from importlib import import_module
from pathlib import Path

import pytest
from strawberry.types.base import get_object_definition

from app import api
from app.api.schema import api_packages, root_types, schema

KINDS = {"QUERIES": "Query", "MUTATIONS": "Mutation"}


def _graphql_names(type_name: str) -> list[str]:
    definition = schema.get_type_by_name(type_name)
    assert definition is not None
    return [schema.config.name_converter.get_graphql_name(field) for field in definition.fields]


def _root_fields(root: type) -> list[str]:
    return [
        schema.config.name_converter.get_graphql_name(field)
        for field in get_object_definition(root, strict=True).fields
    ]


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_package_s_root_types_are_in_the_schema(kind: str) -> None:
    fields = _graphql_names(KINDS[kind])
    named = [name for package in api_packages() for name in getattr(package, kind, ())]
    assert named, kind
    for root in root_types(kind):
        assert set(_root_fields(root)) <= set(fields), root.__name__


@pytest.mark.parametrize("kind", list(KINDS))
def test_root_fields_come_in_package_order(kind: str) -> None:
    expected = [field for root in root_types(kind) for field in _root_fields(root)]
    fields = _graphql_names(KINDS[kind])
    assert fields[len(fields) - len(expected) :] == expected
    packages = [package.__name__ for package in api_packages()]
    assert packages == sorted(packages)


def test_every_root_type_in_app_api_is_named_by_its_package() -> None:
    """A Queries/Mutations class left out of its package's QUERIES/MUTATIONS would never be
    served: nothing else imports it."""
    defined = set()
    for package in api_packages():
        for module in pkgutil.iter_modules(package.__path__, f"{package.__name__}."):
            for name, value in vars(import_module(module.name)).items():
                if (
                    name.endswith(("Queries", "Mutations"))
                    and isinstance(value, type)
                    and get_object_definition(value) is not None
                ):
                    defined.add(value)
    assert defined == set(root_types("QUERIES")) | set(root_types("MUTATIONS"))


PROBE_ROOTS = """
import strawberry


@strawberry.type
class ProbeQueries:
    @strawberry.field
    def probe(self) -> int:
        return 1
"""


def test_a_new_package_is_picked_up_without_an_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = root_types("QUERIES")
    package = tmp_path / "zz_probe"
    package.mkdir()
    (package / "__init__.py").write_text('QUERIES = ("roots.ProbeQueries",)\n', encoding="utf-8")
    (package / "roots.py").write_text(PROBE_ROOTS, encoding="utf-8")
    monkeypatch.setattr(api, "__path__", [*api.__path__, str(tmp_path)])
    try:
        found = root_types("QUERIES")
    finally:
        for name in ("app.api.zz_probe.roots", "app.api.zz_probe"):
            sys.modules.pop(name, None)
    assert found[-1].__name__ == "ProbeQueries"
    assert found[:-1] == before
