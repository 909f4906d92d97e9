#!/usr/bin/env bash
# Builds (once) and activates the cached Python environment, then runs the project CLI.
# The environment lives outside the clone, keyed by the dependency pins in pyproject.toml,
# so every clone and CI reuse it; a new machine builds it from nothing.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${AGENTMEM_CACHE_DIR:-$HOME/.cache/agentmem}"
PYTHON="${AGENTMEM_PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null || PYTHON=python3
KEY="$("$PYTHON" - "$REPO/pyproject.toml" <<'PY'
import hashlib, json, sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
pins = {"deps": project["dependencies"], "extra": project.get("optional-dependencies", {})}
print(hashlib.sha256(json.dumps(pins, sort_keys=True).encode()).hexdigest()[:16])
PY
)"
VENV="$CACHE/venv-$KEY"
if [ ! -f "$VENV/.complete" ]; then
  echo "[env] building Python environment in $VENV (first run only; torch is several GB)" >&2
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
  DEPS="$("$PYTHON" - "$REPO/pyproject.toml" <<'PY'
import sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
print("\n".join(project["dependencies"] + project["optional-dependencies"]["dev"]))
PY
)"
  printf '%s\n' "$DEPS" > "$VENV/requirements.txt"
  "$VENV/bin/pip" install --progress-bar on --upgrade pip >&2
  "$VENV/bin/pip" install --progress-bar on -r "$VENV/requirements.txt" >&2
  touch "$VENV/.complete"
fi
export PATH="$VENV/bin:$PATH"
export PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export AGENTMEM_CACHE_DIR="$CACHE"
cd "$REPO"
if [ "$#" -eq 0 ]; then exec python -m app --help; fi
if [ "$1" = "--venv" ]; then echo "$VENV"; exit 0; fi
if [ "$1" = "--exec" ]; then shift; exec "$@"; fi
exec python -m app "$@"
