"""Importing the legacy memory stores of seed 004 (SessionMemoryAgent, contextual_memory,
jarvis_memory) from JSON-lines files: each line checked by the rules of `remember` and
startSession, written idempotently in batches (a re-import writes nothing new), bad lines
reported with their reasons."""

from app.domain.legacy.report import DEFAULT_BATCH, ImportOptions, ImportReport, Rejected
from app.domain.legacy.run import DEFAULT_AGENT, import_lines
from app.domain.legacy.values import LegacyFormat, session_id_of

__all__ = [
    "DEFAULT_AGENT",
    "DEFAULT_BATCH",
    "ImportOptions",
    "ImportReport",
    "LegacyFormat",
    "Rejected",
    "import_lines",
    "session_id_of",
]
