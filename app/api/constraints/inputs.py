"""Constraint document inputs."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from app.model.enums import ConstraintKind


@strawberry.input(description="A new document: version 1 of its kind for this client.")
class CreateConstraintDocumentInput:
    kind: ConstraintKind
    title: str
    content: JSON = strawberry.field(
        description="JSON as the kind's schema says (constraintSchema)."
    )
    reason: str = strawberry.field(description="Why: kept with the version.")


@strawberry.input(description="A new version of a document.")
class EditConstraintDocumentInput:
    content: JSON = strawberry.field(description="The whole new content (not a patch).")
    reason: str = strawberry.field(description="Why this change: kept with the version.")
    base_version: int | None = strawberry.field(
        default=None,
        description="The version this edit was made from: CONFLICT if another version was "
        "made since (leave out to overwrite whatever is current).",
    )
    title: str | None = None
