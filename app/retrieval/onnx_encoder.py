"""The embedding model on onnxruntime: about a third of torch's CPU per query, the same vectors
(1 - cosine <= 2e-7 on LoCoMo's questions and turns, single and batched).

A model qualifies when its modules.json is exactly Transformer, mean Pooling and Normalize and
its transformer folder has tokenizer.json (all-MiniLM-L6-v2 does); any other model stays on
sentence-transformers (app/retrieval/embedder.py decides, and logs why).

The transformer's last hidden state is exported once per model's files, offline from the
model's own weights, by a child process (`python -m app.retrieval.onnx_encoder MODEL_DIR OUT`:
torch, transformers and onnx are imported there, never in a process that serves), into
cache_dir/onnx/<sha256 of RECIPE and every file of the model folder, names and bytes>/model.onnx
beside its manifest.json. The child checks probe texts (a tiny text, one past the model's
max_seq_length, single and batched) against sentence-transformers before anything is
published; the file is then renamed into place, so a concurrent process sees all of it or
none, and processes starting together export once (the others wait on the folder's lock).

At run time: `tokenizers` (cut at the model's max_seq_length, padded to a batch's longest
text), onnxruntime, then mean pooling over the attention mask and L2 normalisation in numpy.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

# Part of every export's key: change it and every model is exported anew.
RECIPE = "agentmem/st-transformer-last-hidden-state/torchscript-exporter/opset17/v1"
MIN_COSINE = 0.9999  # of every probe's vector with sentence-transformers', or nothing is published
EXPORT_TIMEOUT_S = 900.0
MISMATCH = 3  # the child's exit status when its export differs from sentence-transformers
PROGRESS, MANIFEST = "progress: ", "manifest: "  # the child's lines the parent reads
REQUIRED = ("recipe", "max_seq_length", "dimension", "tokenizer", "probe_min_cosine")
MODULES = ["Transformer", "Pooling", "Normalize"]
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
REPO = Path(__file__).resolve().parents[2]


class ExportFailed(RuntimeError):
    """No ONNX file for the model: the export or its check against torch failed."""


@dataclass(frozen=True)
class Exported:
    """A published export: model.onnx and what its manifest says."""

    path: Path
    manifest: dict[str, Any]

    @property
    def max_seq_length(self) -> int:
        return int(self.manifest["max_seq_length"])

    def tokenizer_file(self, model_dir: Path) -> Path:
        return model_dir / self.manifest["tokenizer"]


def unsuitable(model_dir: Path) -> str | None:
    """Why the model folder cannot take the ONNX path (from its files alone); None: it can. The
    child's check against sentence-transformers has the last word."""
    modules = _json(model_dir / "modules.json")
    if not isinstance(modules, list):
        return "no modules.json (a bare Hugging Face model gets sentence-transformers' defaults)"
    kinds = [str(m.get("type", "")) if isinstance(m, dict) else "?" for m in modules]
    names = [kind.rsplit(".", 1)[-1] for kind in kinds]
    plain = all(kind.startswith("sentence_transformers.") for kind in kinds)
    if names != MODULES or not plain or any("kwargs" in m for m in modules):
        return f"its modules are {names}, not exactly {' + '.join(MODULES)}"
    transformer = model_dir / str(modules[0].get("path", ""))
    if not (transformer / "tokenizer.json").is_file():
        return "no tokenizer.json (a slow tokenizer only)"
    if not (transformer / "config.json").is_file():
        return "its transformer has no config.json"
    pooling = _json(model_dir / str(modules[1].get("path", "")) / "config.json")
    if not isinstance(pooling, dict) or not _mean_pooling(pooling):
        return "its pooling is not plain mean pooling"
    options = _json(transformer / "sentence_bert_config.json") or {}
    if options.get("do_lower_case"):
        return "its Transformer lower-cases texts itself (do_lower_case)"
    if options.get("transformer_task", "feature-extraction") != "feature-extraction":
        return f"its Transformer's task is {options.get('transformer_task')!r}"
    config = _json(model_dir / "config_sentence_transformers.json") or {}
    if config.get("default_prompt_name"):
        return f"it adds the prompt {config['default_prompt_name']!r} to every text"
    return None


def _mean_pooling(config: dict[str, Any]) -> bool:
    """Mean over the tokens and nothing else, in either format sentence-transformers writes."""
    if "pooling_mode" in config:  # sentence-transformers 6
        mode = config["pooling_mode"]
        return mode == "mean" or mode == ["mean"]
    modes = {key: value for key, value in config.items() if key.startswith("pooling_mode_")}
    return modes.get("pooling_mode_mean_tokens") is True and sum(map(bool, modes.values())) == 1


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


_keys: dict[tuple[Any, ...], str] = {}
_keys_lock = threading.Lock()


def model_key(model_dir: Path) -> str:
    """The export's folder name: RECIPE and every file of the model folder (its path and bytes).
    Hashing all-MiniLM-L6-v2's 91 MB takes about 0.25 s; a process does it again only when a
    file's size or time changes."""
    files = sorted(path for path in model_dir.rglob("*") if path.is_file())
    seen = tuple((str(path), path.stat().st_size, path.stat().st_mtime_ns) for path in files)
    with _keys_lock:
        if (found := _keys.get(seen)) is not None:
            return found
    digest = hashlib.sha256(RECIPE.encode())
    for path in files:
        digest.update(b"\0" + path.relative_to(model_dir).as_posix().encode() + b"\0")
        with path.open("rb") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
    key = digest.hexdigest()[:32]
    with _keys_lock:
        _keys[seen] = key
    return key


def export_folder(model_dir: Path, cache_dir: Path) -> Path:
    return cache_dir / "onnx" / model_key(model_dir)


def exported(model_dir: Path, cache_dir: Path) -> Exported:
    """The model's published ONNX file, exported first when these model files have none
    (ExportFailed if that fails; a mismatch with torch is remembered in failed.json)."""
    folder = export_folder(model_dir, cache_dir)
    if (found := published(folder)) is not None:
        return found
    folder.mkdir(parents=True, exist_ok=True)
    with _locked(folder / ".lock", model_dir):
        if (found := published(folder)) is not None:  # another process exported it meanwhile
            return found
        failed = folder / "failed.json"
        if failed.is_file():
            reason = (_json(failed) or {}).get("reason", "?")
            raise ExportFailed(f"{reason} (noted in {failed}; delete it to try again)")
        return _export(model_dir, folder)


def published(folder: Path) -> Exported | None:
    """The export in `folder` once complete: model.onnx is renamed into place last."""
    target = folder / "model.onnx"
    if not target.is_file():
        return None
    manifest = _json(folder / "manifest.json")
    if not isinstance(manifest, dict) or any(key not in manifest for key in REQUIRED):
        return None
    if manifest["recipe"] != RECIPE:
        return None
    return Exported(target, manifest)


@contextmanager
def _locked(path: Path, model_dir: Path) -> Iterator[None]:
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log.info("waiting for another process's ONNX export of %s", model_dir)
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _export(model_dir: Path, folder: Path) -> Exported:
    started = time.monotonic()
    _note(
        "exporting %s to ONNX (once for these model files, about 10-30 s) into %s",
        model_dir,
        folder,
    )
    for stale in folder.glob("model.*.onnx.tmp"):  # a killed export's (this one holds the lock)
        stale.unlink(missing_ok=True)
    handle, name = tempfile.mkstemp(dir=folder, prefix="model.", suffix=".onnx.tmp")
    os.close(handle)
    partial = Path(name)
    try:
        manifest = _run_child(model_dir, partial, folder)
        manifest["export_s"] = round(time.monotonic() - started, 1)
        manifest["model_dir"] = str(model_dir)
        written = folder / "manifest.json.tmp"
        written.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
        os.replace(written, folder / "manifest.json")
        partial.chmod(0o644)  # mkstemp makes it 0600
        os.replace(partial, folder / "model.onnx")  # last: what `published` waits for
    finally:
        with suppress(FileNotFoundError):
            partial.unlink()
    _note(
        "ONNX model of %s ready in %.1f s (probe cosine with torch >= %.7f): %s",
        model_dir,
        manifest["export_s"],
        manifest["probe_min_cosine"],
        folder / "model.onnx",
    )
    return Exported(folder / "model.onnx", manifest)


def _note(message: str, *args: Any) -> None:
    """The one-off export's progress: logged, and on stderr where nothing handles the log (the
    commands other than `serve`), so that a wait of many seconds is explained."""
    log.info(message, *args)
    if not log.hasHandlers():
        print(message % args, file=sys.stderr, flush=True)


def _run_child(model_dir: Path, out: Path, folder: Path) -> dict[str, Any]:
    """Runs the export in a child process, its progress lines logged as they come."""
    path = os.environ.get("PYTHONPATH")
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO) + (os.pathsep + path if path else ""),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    command = [sys.executable, "-m", __name__, str(model_dir), str(out)]
    tail: deque[str] = deque(maxlen=20)
    manifest: dict[str, Any] | None = None
    with subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    ) as child:
        watchdog = threading.Timer(EXPORT_TIMEOUT_S, child.kill)
        watchdog.start()
        try:
            assert child.stdout is not None
            for line in child.stdout:
                line = line.rstrip()
                if line.startswith(PROGRESS):
                    _note("ONNX export of %s: %s", model_dir.name, line[len(PROGRESS) :])
                elif line.startswith(MANIFEST):
                    manifest = json.loads(line[len(MANIFEST) :])
                elif line:
                    tail.append(line)
            code = child.wait()
        finally:
            watchdog.cancel()
    if code == 0 and manifest is not None:
        return manifest
    reason = tail[-1] if tail else f"exit status {code}"
    if code == MISMATCH:
        failed = {"reason": reason, "recipe": RECIPE, "model_dir": str(model_dir)}
        (folder / "failed.json").write_text(json.dumps(failed, indent=1) + "\n")
    else:
        reason = f"exit status {code}: " + " | ".join(tail)
    raise ExportFailed(reason)


class OnnxModel:
    """What the embedder uses of a SentenceTransformer (encode, tokenizer, max_seq_length,
    get_embedding_dimension), on onnxruntime. Thread-safe: onnxruntime's run and the
    tokenizers' encode may be called from several threads at once."""

    def __init__(
        self, path: Path, tokenizer_file: Path, *, max_seq_length: int, threads: int = 1
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.inputs = frozenset(node.name for node in self.session.get_inputs())
        self.max_seq_length = max_seq_length
        # tokenizer.json often pads every text to a fixed length and cuts at a length of its
        # own (all-MiniLM-L6-v2's: 128, where sentence-transformers cuts at 256): both replaced.
        counting = Tokenizer.from_file(str(tokenizer_file))
        padding = counting.padding or {}
        self.pad_id = int(padding.get("pad_id", 0))
        counting.no_padding()
        counting.no_truncation()
        cutting = Tokenizer.from_file(str(tokenizer_file))
        cutting.no_padding()
        cutting.enable_truncation(max_seq_length)
        self._counting, self._cutting = counting, cutting
        width = self.session.get_outputs()[0].shape[-1]
        self.dimension = width if isinstance(width, int) else self._forward_texts(["a"]).shape[1]

    def get_embedding_dimension(self) -> int:
        return int(self.dimension)

    def tokenizer(self, texts: list[str], add_special_tokens: bool = True) -> dict[str, Any]:
        """Every token of each text, uncut (how long a text is: Embedder.truncated_sync)."""
        return {
            "input_ids": [
                self._counting.encode(text, add_special_tokens=add_special_tokens).ids
                for text in texts
            ]
        }

    def encode(
        self, texts: list[str], batch_size: int = 64, **_options: Any
    ) -> np.ndarray[Any, np.dtype[np.float32]]:
        """Unit vectors (the model ends in Normalize), `batch_size` texts to a model call,
        texts of similar length together as sentence-transformers batches them. Each text is
        tokenized on the calling thread (tokenizers' encode_batch would spread over every core)."""
        encodings = [self._cutting.encode(text) for text in texts]
        order = sorted(range(len(texts)), key=lambda n: -len(encodings[n].ids))
        vectors = np.empty((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            vectors[rows] = self._forward([encodings[n] for n in rows])
        return vectors

    def _forward_texts(self, texts: list[str]) -> np.ndarray[Any, np.dtype[np.float32]]:
        return self._forward([self._cutting.encode(text) for text in texts])

    def _forward(self, encodings: list[Any]) -> np.ndarray[Any, np.dtype[np.float32]]:
        width = max(len(encoding.ids) for encoding in encodings)
        ids = np.full((len(encodings), width), self.pad_id, dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            length = len(encoding.ids)
            ids[row, :length] = encoding.ids
            mask[row, :length] = encoding.attention_mask
            types[row, :length] = encoding.type_ids
        given = dict(zip(INPUTS, (ids, mask, types), strict=True))
        hidden = self.session.run(None, {k: v for k, v in given.items() if k in self.inputs})[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return (pooled / norms).astype(np.float32)


def probes(max_seq_length: int) -> list[str]:
    """Texts every export is checked on: empty, tiny, a question, punctuation and other
    scripts, a turn, and one past the model's max_seq_length."""
    sentence = "The quick brown fox jumps over the lazy dog near the riverbank at dawn, again. "
    long = sentence * (max_seq_length // 8 + 2)  # ~18 tokens a sentence: well past the limit
    return [
        "",
        "Thanks!",
        "What did Caroline research?",
        'Café déjà vu — naïve résumé, 東京 and ünïcödé 🙂 "quoted" (x = 3.14) don\'t!',
        "I went hiking with my dog last weekend; we found a waterfall and stayed until sunset, "
        "then drove home through the hills singing along to old songs.",
        long,
    ]


def _say(message: str) -> None:
    print(PROGRESS + message, flush=True)


def main(argv: list[str]) -> int:
    """The child: exports MODEL_DIR's transformer to OUT and checks it, printing progress and
    finally the manifest; exit status MISMATCH when the check fails."""
    import inspect
    import warnings

    warnings.filterwarnings("ignore")
    model_dir, out = Path(argv[0]), Path(argv[1])
    modules = json.loads((model_dir / "modules.json").read_text())
    transformer = model_dir / str(modules[0].get("path", ""))
    _say("loading the model (torch)")
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers import AutoModel

    reference = SentenceTransformer(str(model_dir), device="cpu")
    max_seq_length = reference.max_seq_length
    if not isinstance(max_seq_length, int):
        print(f"the model has no max_seq_length ({max_seq_length!r})", flush=True)
        return MISMATCH
    network = AutoModel.from_pretrained(str(transformer), attn_implementation="eager").eval()
    accepted = inspect.signature(network.forward).parameters
    names = [name for name in INPUTS if name in accepted]

    class LastHiddenState(torch.nn.Module):
        def __init__(self, network: torch.nn.Module) -> None:
            super().__init__()
            self.network = network

        def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
            return self.network(**dict(zip(names, inputs, strict=True))).last_hidden_state

    _say(f"exporting the transformer's last hidden state ({', '.join(names)})")
    ids = torch.ones((1, 12), dtype=torch.long)
    example = {"input_ids": ids, "attention_mask": torch.ones_like(ids)}
    example["token_type_ids"] = torch.zeros_like(ids)
    axes = {name: {0: "batch", 1: "seq"} for name in [*names, "last_hidden_state"]}
    with torch.inference_mode():
        torch.onnx.export(
            LastHiddenState(network),
            tuple(example[name] for name in names),
            str(out),
            dynamo=False,
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes=axes,
            opset_version=17,
            do_constant_folding=True,
        )
    _say("checking probe texts against sentence-transformers")
    tokenizer_file = transformer / "tokenizer.json"
    model = OnnxModel(out, tokenizer_file, max_seq_length=max_seq_length)
    texts = probes(max_seq_length)
    want = np.asarray(reference.encode(texts, batch_size=64, normalize_embeddings=True))
    singles = np.concatenate([model.encode([text]) for text in texts])
    together = model.encode(texts)
    worst = float(min(np.min(np.sum(want * got, axis=1)) for got in (singles, together)))
    ours = [len(ids) for ids in model.tokenizer(texts)["input_ids"]]
    theirs = [len(ids) for ids in reference.tokenizer(texts, add_special_tokens=True)["input_ids"]]
    if ours != theirs:
        print(f"token counts differ from sentence-transformers': {ours} vs {theirs}", flush=True)
        return MISMATCH
    if ours[-1] <= max_seq_length or worst < MIN_COSINE:
        print(f"ONNX vectors differ from torch's (cosine {worst:.6f})", flush=True)
        return MISMATCH
    if model.dimension != reference.get_embedding_dimension():
        found = reference.get_embedding_dimension()
        print(f"{model.dimension} dimensions, torch {found}", flush=True)
        return MISMATCH
    import onnx
    import onnxruntime
    import sentence_transformers
    import transformers

    manifest = {
        "recipe": RECIPE,
        "max_seq_length": max_seq_length,
        "dimension": model.dimension,
        "inputs": names,
        "tokenizer": tokenizer_file.relative_to(model_dir).as_posix(),
        "probe_min_cosine": worst,
        "probes": len(texts),
        "versions": {
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "sentence_transformers": sentence_transformers.__version__,
            "onnx": onnx.__version__,
            "onnxruntime": onnxruntime.__version__,
        },
    }
    print(MANIFEST + json.dumps(manifest), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
