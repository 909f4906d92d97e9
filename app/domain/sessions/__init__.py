"""Working-memory sessions (seed 003): entries on timelines, deletes, flush into an episodic
summary, rehydration, transcripts and search."""

from app.domain.sessions.artifacts import ArtifactContent, attach_artifact, read_artifact
from app.domain.sessions.deletes import delete_entry, delete_timeline
from app.domain.sessions.flush import end_session
from app.domain.sessions.reads import MAX_REHYDRATE, Rehydrated, rehydrate_session, session_entries
from app.domain.sessions.repository import put_entry, start_session
from app.domain.sessions.search import SearchArgs, search_entries, search_episodic

__all__ = [
    "ArtifactContent",
    "MAX_REHYDRATE",
    "Rehydrated",
    "SearchArgs",
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
    "start_session",
]
