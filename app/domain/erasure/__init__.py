"""Erasing a subject (seed 004, the right to be forgotten): every memory, session, artifact and
stored object about one subject of a client, with counts."""

from app.domain.erasure.subject import Erasure, erase_subject

__all__ = ["Erasure", "erase_subject"]
