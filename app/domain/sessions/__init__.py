"""Working-memory sessions (seed 003): entries on timelines, deletes, flush into an episodic
summary, rehydration, transcripts and search; archive and unarchive (seed 004)."""

from app.domain.sessions.archive import Archived, archive_session
from app.domain.sessions.artifacts import ArtifactContent, attach_artifact, read_artifact
from app.domain.sessions.deletes import delete_entry, delete_timeline
from app.domain.sessions.facts import LearnedFact
from app.domain.sessions.flush import end_session
from app.domain.sessions.progress import PROGRESS_KEY, Progress, summarize_session
from app.domain.sessions.reads import MAX_REHYDRATE, Rehydrated, rehydrate_session, session_entries
from app.domain.sessions.repository import put_entry, start_session
from app.domain.sessions.search import SearchArgs, search_entries, search_episodic
from app.domain.sessions.ttl import set_session_ttl
from app.domain.sessions.unarchive import Unarchived, unarchive_session

__all__ = [
    "Archived",
    "ArtifactContent",
    "LearnedFact",
    "MAX_REHYDRATE",
    "PROGRESS_KEY",
    "Progress",
    "Rehydrated",
    "SearchArgs",
    "Unarchived",
    "archive_session",
    "attach_artifact",
    "delete_entry",
    "delete_timeline",
    "end_session",
    "put_entry",
    "read_artifact",
    "rehydrate_session",
    "search_entries",
    "search_episodic",
    "session_entries",
    "set_session_ttl",
    "start_session",
    "summarize_session",
    "unarchive_session",
]
