"""Memory records, their versions and artifacts, and the access log (seeds 001-004); fields from
app/model."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from app.api.types.base import NodeType, node_type
from app.api.types.downloads import download_url_field


@node_type(
    "MemoryRecord",
    "One memory of a client, in a namespace (subject / agent / session / path); "
    "(namespace, key) identifies an upsertable record. Expired records are never returned.",
)
class MemoryRecord(NodeType):
    session_id: str | None  # a namespace part, any text
    timeline: str | None  # read by app/api/sessions/outputs.py
    namespace: str = strawberry.field(
        description="Canonical join of the parts, e.g. subject:alice/agent:brad/notes."
    )
    content: JSON | None = strawberry.field(
        description="Structured content; read from object storage when it is stored there."
    )
    content_uri: str | None = strawberry.field(
        description="Where large content lives in object storage (null when inline)."
    )
    content_size: int | None = strawberry.field(description="Bytes of the content's JSON.")
    active: bool = strawberry.field(description="False once forgotten (soft-deleted).")


@node_type("MemoryVersion", "A superseded state of a memory record.")
class MemoryVersion(NodeType):
    content: JSON | None = strawberry.field(description="Inline content (else see contentUri).")
    valid_from: datetime | None = strawberry.field(description="When this state was written.")
    created_at: datetime = strawberry.field(description="When it was superseded.")


@node_type("MemoryArtifact", "A verbatim attachment (a transcript, a file) in object storage.")
class MemoryArtifact(NodeType):
    __needs__ = frozenset({"uri"})  # downloadUrl

    owner_id: strawberry.ID = strawberry.field(description="The record or session it belongs to.")
    uri: str
    download_url: str = download_url_field()


@node_type("AccessLogEntry", "One read or write of memory records (seed 004 access log).")
class AccessLogEntry(NodeType):
    operation: str = strawberry.field(
        description="create, update, revive, read, list, history, delete, purge, search, "
        "attach, expire, ..."
    )
    principal: str = strawberry.field(description="The agent name of the key, else its id.")
    key_id: str | None  # kept as text, like the log's other references
    target_id: str | None
    session_id: str | None = strawberry.field(
        description="The memory session it concerns, else the request's X-Session-Id header."
    )
    request_id: str | None = strawberry.field(description="The HTTP request's X-Request-Id.")
    request_data: JSON | None = strawberry.field(
        description="The request's operationName and variables: secrets replaced, long "
        "values cut (at most 1,000 characters of JSON)."
    )
    error_message: str | None = strawberry.field(
        description="The error's code and message when the access failed."
    )
    client_address: str | None = strawberry.field(description="The client's IP address.")
    created_at: datetime = strawberry.field(description="When the access happened.")
