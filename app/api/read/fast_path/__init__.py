"""A faster completion of GraphQL results built from compiled graph reads; see executor.py."""

from __future__ import annotations

from app.api.read.fast_path.executor import STATS, FastExecutor, FastPathStats

__all__ = ["STATS", "FastExecutor", "FastPathStats"]
