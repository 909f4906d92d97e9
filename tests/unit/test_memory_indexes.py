"""Memory indexes without a database: a model's property and index names (closed patterns, never
raw input), where a model is read from, which index a client's search uses and which models a
changed or unchanged record is embedded with."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from app.domain.kernel.errors import ValidationFailed
from app.model.enums import MemoryIndexStatus as Status
from app.model.search_index import is_hidden_property
from app.retrieval.index_registry import Entry, RegistryView
from app.retrieval.model_source import canonical, model_path
from app.retrieval.search_queries import projection, vector_query
from app.retrieval.vector_index import (
    LEGACY_MODEL,
    PROPERTY_NAME,
    VectorIndex,
    create_index_ddl,
    for_model,
    legacy_slot,
)
from app.retrieval.vectors import SingleTarget, embed_rows

HOSTILE = "x' }) DETACH DELETE n //`"


def test_the_first_model_keeps_the_original_property_and_index() -> None:
    index = for_model(LEGACY_MODEL, 384)
    assert (index.property, index.index) == ("embedding", "searchable_embedding")


def test_other_models_get_their_own_names_from_a_closed_pattern() -> None:
    tiny = for_model("/models/tiny-16", 16)
    assert tiny.property.startswith("embedding__tiny_16_")
    assert tiny.index == tiny.property.replace("embedding__", "searchable_embedding__")
    hostile = for_model(HOSTILE, 8)
    assert PROPERTY_NAME.fullmatch(hostile.property)
    assert not set(hostile.property) & set("'`{}() /")
    # Two folders of the same name are two models.
    assert for_model("/a/model", 8).property != for_model("/b/model", 8).property
    assert is_hidden_property(tiny.property) and not is_hidden_property("embedding_model")


def test_a_vector_index_refuses_names_and_dimensions_outside_the_patterns() -> None:
    with pytest.raises(ValueError, match="not a vector property"):
        VectorIndex("m", "embedding__x}) DETACH DELETE n", "searchable_embedding__x", 8)
    with pytest.raises(ValueError, match="dimensions"):
        for_model("m", 5000)


def test_the_index_ddl_is_the_migrations_own_with_the_models_dimension() -> None:
    ddl = create_index_ddl(for_model("/models/tiny", 16))
    assert "`vector.dimensions`: 16" in ddl
    assert "FOR (n:Searchable) ON n.embedding__tiny_" in ddl
    assert "WITH [n.client_id, n.record_type]" in ddl and "$" not in ddl


def test_a_model_is_a_local_folder_or_an_installed_package(tmp_path: Path) -> None:
    assert (model_path(LEGACY_MODEL) / "modules.json").is_file()
    with pytest.raises(ValidationFailed, match="no sentence-transformers model") as empty:
        model_path(str(tmp_path))
    assert empty.value.details["field"] == "model"
    with pytest.raises(ValidationFailed, match="never downloaded"):
        model_path("sentence-transformers/all-mpnet-base-v2")
    with pytest.raises(ValidationFailed, match="neither a local folder"):
        model_path(HOSTILE)
    (tmp_path / "modules.json").write_text("[]")
    assert model_path(str(tmp_path)) == tmp_path
    assert canonical(str(tmp_path / ".." / tmp_path.name)) == str(tmp_path.resolve())


def _entry(scope: str, model: str, status: Status, at: str = "") -> Entry:
    return Entry(scope, for_model(model, 8 if model != LEGACY_MODEL else 384), status, at)


def test_a_clients_own_active_index_comes_before_the_deployments() -> None:
    default = legacy_slot(LEGACY_MODEL)
    view = RegistryView(
        [
            _entry("", LEGACY_MODEL, Status.ACTIVE, "1"),
            _entry("", "/m/new", Status.BUILDING),
            _entry("alice", "/m/tiny", Status.ACTIVE, "2"),
            _entry("alice", "/m/old", Status.RETIRED),
            _entry("bob", "/m/bobs", Status.BUILDING),
        ],
        default=default,
    )
    assert view.active("alice").model == "/m/tiny"
    assert view.active("carol").model == LEGACY_MODEL
    assert [i.model for i in view.live("alice")] == ["/m/tiny", LEGACY_MODEL, "/m/new"]
    assert [i.model for i in view.live("carol")] == [LEGACY_MODEL, "/m/new"]
    assert [i.model for i in view.live("bob")] == [LEGACY_MODEL, "/m/bobs", "/m/new"]
    # Another client's indexes are not in a client's view, nor their vectors in its records.
    assert for_model("/m/bobs", 8).property not in view.hidden("carol")
    assert for_model("/m/old", 8).property in view.hidden("alice")
    assert RegistryView([], default=default).active("carol") is default


def test_the_last_activated_of_two_deployment_indexes_wins() -> None:
    view = RegistryView(
        [_entry("", "/m/a", Status.ACTIVE, "2026-01-02"), _entry("", "/m/b", Status.ACTIVE, "2")],
        default=legacy_slot(LEGACY_MODEL),
    )
    assert view.active("anyone").model == "/m/a"


def test_search_queries_look_in_the_clients_index_and_hide_other_vectors() -> None:
    tiny = for_model("/m/tiny", 8)
    assert projection(()) == projection(("not a vector property",))
    assert f"{tiny.property}: null" in projection((tiny.property,))
    shown = projection((tiny.property,))
    query = vector_query("true", typed=False, shown=shown, index=tiny)
    assert f"VECTOR INDEX {tiny.index} FOR $vector" in query
    assert f"{tiny.property}: null" in query
    assert "VECTOR INDEX searchable_embedding FOR" in vector_query("true", typed=True, shown=None)


class FakeModel:
    def __init__(self, name: str, calls: list[tuple[str, list[str]]]) -> None:
        self.model_name, self.calls = name, calls

    async def embed_batch(self, texts: list[str]) -> tuple[list[list[float]], list[bool]]:
        self.calls.append((self.model_name, texts))
        return [[float(len(text))] for text in texts], ["long" in text for text in texts]


class FakeTargets:
    def __init__(self, live: list[VectorIndex]) -> None:
        self.indexes = live
        self.calls: list[tuple[str, list[str]]] = []

    async def live(self, client_id: str) -> list[VectorIndex]:
        return self.indexes

    def for_index(self, index: VectorIndex) -> FakeModel:
        return FakeModel(index.model, self.calls)

    def invalidate(self) -> None:
        return None


def _row(text: str, *, unchanged: bool = False, present: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "client_id": "c",
        "embed_text": text,
        "empty": not text,
        "unchanged": unchanged,
        "present": list(present),
        "truncated": False,
    }


def test_a_changed_text_is_embedded_for_every_live_index_an_unchanged_one_for_those_it_lacks() -> (
    None
):
    legacy, tiny = legacy_slot(LEGACY_MODEL), for_model("/m/tiny", 1)
    targets = FakeTargets([legacy, tiny])
    changed = _row("a long changed text")
    filled = _row("unchanged", unchanged=True, present=("embedding",))
    settled = _row("settled", unchanged=True, present=("embedding", tiny.property))
    empty = _row("")
    assert asyncio.run(embed_rows(targets, [changed, filled, settled, empty])) == 2
    assert [v["property"] for v in changed["vectors"]] == ["embedding", tiny.property]
    assert [v["property"] for v in filled["vectors"]] == [tiny.property]
    assert settled["vectors"] == [] and empty["vectors"] == []
    assert changed["model"] == LEGACY_MODEL and changed["truncated"]
    # One model call per model, each with all of its rows.
    assert targets.calls == [
        (LEGACY_MODEL, ["a long changed text"]),
        ("/m/tiny", ["a long changed text", "unchanged"]),
    ]


def test_an_embedder_without_the_registry_writes_embedding_as_before() -> None:
    model = FakeModel("refusing-test-embedder", [])
    row = _row("text")
    assert asyncio.run(embed_rows(SingleTarget(model), [row])) == 1
    assert [v["property"] for v in row["vectors"]] == ["embedding"]


class BrokenModel(FakeModel):
    async def embed_batch(self, texts: list[str]) -> tuple[list[list[float]], list[bool]]:
        raise OSError("the model folder is gone")


class BrokenTargets(FakeTargets):
    def __init__(self, live: list[VectorIndex], broken: str) -> None:
        super().__init__(live)
        self.broken = broken

    def for_index(self, index: VectorIndex) -> FakeModel:
        if index.model == self.broken:
            return BrokenModel(index.model, self.calls)
        return super().for_index(index)


def test_a_model_being_built_that_fails_does_not_stop_the_active_ones_vectors() -> None:
    legacy, tiny = legacy_slot(LEGACY_MODEL), for_model("/m/tiny", 1)
    row = _row("text")
    assert asyncio.run(embed_rows(BrokenTargets([legacy, tiny], "/m/tiny"), [row])) == 1
    assert [v["property"] for v in row["vectors"]] == ["embedding"]  # pending for the other
    with pytest.raises(OSError, match="gone"):
        asyncio.run(embed_rows(BrokenTargets([tiny, legacy], "/m/tiny"), [_row("text")]))
