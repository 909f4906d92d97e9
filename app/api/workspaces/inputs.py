"""Workspace inputs."""

from __future__ import annotations

import strawberry


@strawberry.input(
    description="A new workspace of an agent (the API key's agent by default, created on first "
    "use); its name is unique per agent."
)
class CreateWorkspaceInput:
    name: str = strawberry.field(description="1-100 letters, digits, '.', '_', '-'.")
    agent_name: str | None = None
    description: str | None = None


@strawberry.input(
    description="The new content of one path: text (stored as UTF-8) or contentBase64, exactly one."
)
class WriteWorkspaceFileInput:
    workspace_id: strawberry.ID
    path: str = strawberry.field(
        description="Relative, '/' between names, e.g. notes/plan.md (no '.', '..' or empty names)."
    )
    text: str | None = None
    content_base64: str | None = None
    media_type: str | None = strawberry.field(
        default=None,
        description="E.g. text/markdown; by default the one the path's extension names, else "
        "text/plain; charset=utf-8 for text and application/octet-stream for bytes.",
    )
