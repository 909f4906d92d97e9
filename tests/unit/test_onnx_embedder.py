"""The embedder on onnxruntime (app/retrieval/onnx_encoder.py): the same vectors as
sentence-transformers (short and long texts, single and batched, through the query and the
record paths), the export made once per model's files (at start-up, not on a request) and reused,
and sentence-transformers kept for a model or a setting that is not for ONNX, or a failed export.

The default model's export goes to the settings' cache folder (as the service's does, so it is
made once); the tiny models built here export into a folder of the test's own."""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pydantic import ValidationError

from app.retrieval import onnx_encoder
from app.retrieval.embedder import Embedder
from app.retrieval.index_setup import open_registry
from app.retrieval.indexed_embedder import IndexedEmbedder
from app.retrieval.model_source import model_path
from app.retrieval.vector_index import LEGACY_MODEL, for_model
from app.settings import Settings
from tests.unit.test_index_setup import RecordingGraph, _row

# A long text whose words change after the first ~100 tokens: a cut at tokenizer.json's own 128
# tokens, rather than the model's 256, gives another vector.
COOKING = "We simmered the tomato sauce with garlic, basil and olive oil for an hour. " * 6
STARS = "The telescope showed Jupiter's moons and a faint spiral galaxy near Andromeda. " * 14
TEXTS = [
    "",
    "Thanks!",
    "What did Caroline research?",
    "When did Melanie paint a sunrise?",
    'Café déjà vu — naïve résumé, 東京 🙂 "quoted" (x = 3.14) don\'t!',
    "I went hiking with my dog last weekend; we found a waterfall and stayed until sunset.",
    COOKING + STARS,
]
TINY_DIMENSIONS, TINY_MAX_SEQ = 32, 64


def cosines(a: Any, b: Any) -> np.ndarray[Any, Any]:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.sum(a * b, axis=1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)


def build_model(folder: Path, *, pooling: str = "mean") -> Path:
    """A tiny random BERT over the default model's tokenizer, saved as a sentence-transformers
    model: Transformer (cut at 64 tokens) + Pooling + Normalize."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.base.modules import Normalize, Transformer
    from sentence_transformers.sentence_transformer.modules import Pooling
    from transformers import AutoTokenizer, BertConfig, BertModel

    torch.manual_seed(7)
    config = BertConfig(
        hidden_size=TINY_DIMENSIONS,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
    )
    bare = folder.with_name(folder.name + "-bare")
    BertModel(config).save_pretrained(str(bare))
    AutoTokenizer.from_pretrained(str(model_path(LEGACY_MODEL))).save_pretrained(str(bare))
    modules = [
        Transformer(str(bare), max_seq_length=TINY_MAX_SEQ),
        Pooling(TINY_DIMENSIONS, pooling),
        Normalize(),
    ]
    SentenceTransformer(modules=modules, device="cpu").save(str(folder))
    return folder


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_model(tmp_path_factory.mktemp("models") / "tiny-mean")


@pytest.fixture
def exports(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The model folders exported during the test (each a child process)."""
    made: list[Path] = []
    export = onnx_encoder._export

    def counted(model_dir: Path, folder: Path) -> onnx_encoder.Exported:
        made.append(model_dir)
        return export(model_dir, folder)

    monkeypatch.setattr(onnx_encoder, "_export", counted)
    return made


def onnx_folders(cache: Path) -> list[Path]:
    return sorted((cache / "onnx").glob("*")) if (cache / "onnx").is_dir() else []


def test_the_default_model_on_onnx_gives_sentence_transformers_vectors() -> None:
    onnx = Embedder(model_name=LEGACY_MODEL)  # the settings' cache folder, as the service
    torch = Embedder(model_name=LEGACY_MODEL, backend="torch")
    assert onnx.prepare_sync() == "onnx" and torch.prepare_sync() == "torch"
    want = torch.embed_sync(TEXTS)
    batched = onnx.embed_sync(TEXTS)
    single = [onnx.embed_sync([text])[0] for text in TEXTS]
    assert (onnx.backend, torch.backend) == ("onnx", "torch")
    assert onnx.dimension_sync() == 384 and len(batched[0]) == 384
    assert min(cosines(batched, want)) >= 0.9999
    assert min(cosines(single, want)) >= 0.9999
    assert min(cosines(single, [torch.embed_sync([text])[0] for text in TEXTS])) >= 0.9999
    # The long text is cut where sentence-transformers cuts it (256 tokens), not at 128.
    cut_early = torch.embed_sync([" ".join((COOKING + STARS).split()[:70])])
    assert cosines(batched[-1:], cut_early)[0] < 0.99
    assert onnx.truncated_sync(TEXTS) == torch.truncated_sync(TEXTS) == [False] * 6 + [True]
    # The worker's path (record chunks with the truncation check) and a search's (the batcher).
    onnx.record_chunk = 3
    records, cut = asyncio.run(onnx.embed_batch(TEXTS))
    queries = asyncio.run(onnx.embed(TEXTS[:4], scope="client-a"))
    assert cut == [False] * 6 + [True]
    assert min(cosines(records, want)) >= 0.9999
    assert min(cosines(queries, want[:4])) >= 0.9999
    assert onnx.stats()["query_texts_total"] == 4 and onnx.stats()["record_texts_total"] == 7


def test_a_tiny_model_is_exported_once_and_reused_until_its_files_change(
    tiny_model: Path, tmp_path: Path, exports: list[Path], caplog: pytest.LogCaptureFixture
) -> None:
    model = tmp_path / "model"
    model.mkdir()
    for path in tiny_model.rglob("*"):  # a copy of its own, to change
        if path.is_file():
            (model / path.relative_to(tiny_model)).parent.mkdir(parents=True, exist_ok=True)
            (model / path.relative_to(tiny_model)).write_bytes(path.read_bytes())
    cache = tmp_path / "cache"
    caplog.set_level(logging.INFO, logger="app.retrieval")
    first = [Embedder(model_name=str(model), cache_dir=cache) for _ in range(2)]
    found: list[str] = []
    threads = [threading.Thread(target=lambda e=e: found.append(e.prepare_sync())) for e in first]
    for thread in threads:  # two at once (as two processes starting): one export
        thread.start()
    for thread in threads:
        thread.join()
    assert found == ["onnx", "onnx"] and exports == [model]
    [folder] = onnx_folders(cache)
    assert sorted(p.name for p in folder.iterdir()) == [".lock", "manifest.json", "model.onnx"]
    assert (folder / "model.onnx").stat().st_mode & 0o777 == 0o644
    manifest = onnx_encoder.published(folder)
    assert manifest is not None and manifest.max_seq_length == TINY_MAX_SEQ
    assert manifest.manifest["dimension"] == TINY_DIMENSIONS
    assert "ONNX model of" in caplog.text and "ready in" in caplog.text
    assert first[0].backend == "onnx" and not first[0].loaded  # prepared, not loaded

    again = Embedder(model_name=str(model), cache_dir=cache)
    torch = Embedder(model_name=str(model), backend="torch")
    texts = TEXTS[1:]
    vectors = again.embed_sync(texts)
    assert again.backend == "onnx" and exports == [model]  # no second export
    assert min(cosines(vectors, torch.embed_sync(texts))) >= 0.9999
    assert again.truncated_sync(texts) == torch.truncated_sync(texts) == [False] * 5 + [True]

    # Any change to the model's files is another model: exported anew, beside the first.
    (model / "README.md").write_text("changed\n")
    changed = Embedder(model_name=str(model), cache_dir=cache)
    assert changed.prepare_sync() == "onnx" and exports == [model, model]
    assert len(onnx_folders(cache)) == 2


def test_torch_is_kept_by_the_setting_and_for_other_models(
    tiny_model: Path, tmp_path: Path, exports: list[Path], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="app.retrieval")
    cache = tmp_path / "cache"
    by_setting = Embedder(model_name=str(tiny_model), backend="torch", cache_dir=cache)
    assert by_setting.prepare_sync() == "torch"
    assert len(by_setting.embed_sync(["a text"])[0]) == TINY_DIMENSIONS
    assert by_setting.backend == "torch"

    cls = Embedder(model_name=str(build_model(tmp_path / "tiny-cls", pooling="cls")))
    cls.cache_dir = cache
    assert cls.prepare_sync() == "torch" and cls.dimension_sync() == TINY_DIMENSIONS
    assert cls.backend == "torch" and "not plain mean pooling" in caplog.text

    static = build_static_model(tmp_path / "static")
    assert onnx_encoder.unsuitable(static) == (
        "its modules are ['StaticEmbedding'], not exactly Transformer + Pooling + Normalize"
    )
    plain = Embedder(model_name=str(static), cache_dir=cache)
    assert plain.prepare_sync() == "torch" and len(plain.embed_sync(["zebra"])[0]) == 16
    assert exports == [] and onnx_folders(cache) == []


def build_static_model(folder: Path) -> Path:
    """A static-embedding model as tests/integration/test_embedding_models.py builds one."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import StaticEmbedding
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_path(LEGACY_MODEL) / "tokenizer.json"))
    weights = np.full((tokenizer.get_vocab_size(), 16), 0.1, dtype=np.float32)
    module = StaticEmbedding(tokenizer, embedding_weights=weights)
    SentenceTransformer(modules=[module], device="cpu").save(str(folder))
    return folder


def test_without_onnxruntime_the_model_stays_on_torch(
    tiny_model: Path,
    tmp_path: Path,
    exports: list[Path],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # `import onnxruntime` fails
    embedder = Embedder(model_name=str(tiny_model), cache_dir=tmp_path)
    assert embedder.prepare_sync() == "torch" and len(embedder.embed_sync(["x"])[0]) == 32
    assert "onnxruntime is not importable" in caplog.text
    assert exports == [] and onnx_folders(tmp_path) == []


def child(script: str) -> list[str]:
    return [sys.executable, "-c", script]


@pytest.mark.parametrize(
    ("script", "remembered"),
    [
        # The check against torch failed: the same files would fail again, so it is noted.
        ("print('ONNX vectors differ from torch (cosine 0.5)'); raise SystemExit(3)", True),
        # Anything else (killed, out of memory...): the next start tries again.
        ("print('Killed'); raise SystemExit(1)", False),
    ],
)
def test_a_failed_export_falls_back_to_torch(
    tiny_model: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    script: str,
    remembered: bool,
) -> None:
    runs: list[list[str]] = []
    popen = onnx_encoder.subprocess.Popen

    def fake_child(command: list[str], **options: Any) -> Any:
        runs.append(command)
        return popen(child(script) + command[3:], **options)

    monkeypatch.setattr(onnx_encoder.subprocess, "Popen", fake_child)
    first = Embedder(model_name=str(tiny_model), cache_dir=tmp_path)
    assert first.prepare_sync() == "torch" and len(first.embed_sync(["x"])[0]) == 32
    assert "no ONNX model (ExportFailed" in caplog.text
    [folder] = onnx_folders(tmp_path)
    assert onnx_encoder.published(folder) is None
    assert not list(folder.glob("*.tmp"))  # the partial file is gone
    assert (folder / "failed.json").is_file() == remembered
    Embedder(model_name=str(tiny_model), cache_dir=tmp_path).prepare_sync()
    assert len(runs) == (1 if remembered else 2)
    if remembered:
        assert "delete it to try again" in caplog.text


def test_start_up_exports_every_model_in_use_without_loading_it(
    tiny_model: Path, tmp_path: Path, exports: list[Path]
) -> None:
    gone = for_model(str(tmp_path / "no-such-model"), 16)  # a folder removed since: no error
    graph = RecordingGraph(
        [
            _row("", for_model(str(tiny_model), TINY_DIMENSIONS), "active"),
            _row("client-a", gone, "building"),
            _row("client-b", for_model(LEGACY_MODEL, 384), "retired"),  # not exported
        ]
    )
    embedder = IndexedEmbedder(model_name=str(tiny_model), cache_dir=tmp_path)
    asyncio.run(open_registry(graph, embedder, refresh_s=60))  # type: ignore[arg-type]
    assert exports == [tiny_model] and len(onnx_folders(tmp_path)) == 1
    assert embedder.prepare_sync() == "onnx" and not embedder.loaded
    assert embedder.model(gone.model).prepare_sync() == "torch"


def test_the_backend_setting(tmp_path: Path) -> None:
    settings = Settings(embedding_backend=" Torch ", cache_dir=tmp_path)  # type: ignore[arg-type]
    embedder = Embedder.from_settings(settings)
    sibling = embedder.sibling("other")
    assert (settings.embedding_backend, embedder.wanted_backend) == ("torch", "torch")
    assert (sibling.wanted_backend, sibling.cache_dir) == ("torch", tmp_path)
    assert Settings().embedding_backend == "onnx"
    with pytest.raises(ValidationError, match="embedding_backend"):
        Settings(embedding_backend="tensorflow")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not one of"):
        Embedder(model_name="x", backend="tensorflow")


def test_the_key_covers_every_file_name_and_byte(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / "sub" / "b.bin").write_bytes(b"\0" * 10)
    keys: list[str] = [onnx_encoder.model_key(tmp_path)]
    changes: list[Callable[[], Any]] = [
        lambda: (tmp_path / "sub" / "b.bin").write_bytes(b"\0" * 9 + b"\1"),
        lambda: (tmp_path / "a.json").rename(tmp_path / "c.json"),
        lambda: (tmp_path / "d").write_text(""),
    ]
    for change in changes:
        change()
        keys.append(onnx_encoder.model_key(tmp_path))
    assert len(set(keys)) == 4 and onnx_encoder.model_key(tmp_path) == keys[-1]
