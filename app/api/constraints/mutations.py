"""Constraint document mutations: thin resolvers over app/domain."""

from __future__ import annotations

import dataclasses

import strawberry

from app.api.constraints.inputs import CreateConstraintDocumentInput, EditConstraintDocumentInput
from app.api.context import Info
from app.api.record_mutations import creates
from app.api.resolve import write
from app.api.types.constraints import ConstraintDocument
from app.domain import constraints


@strawberry.type
class ConstraintMutations:
    create_constraint_document = creates(
        constraints.create_document,
        ConstraintDocument,
        CreateConstraintDocumentInput,
        "Create the client's document of a kind with its version 1 (role reviewer or admin); "
        "CONFLICT if it has one, VALIDATION naming the field when the content does not fit.",
    )

    @strawberry.mutation(
        description="Save a new version of a document (role reviewer or admin); old versions "
        "never change. Content and title equal to the current version's save nothing (a "
        "retried edit). Otherwise CONFLICT when baseVersion is not the current version."
    )
    async def edit_constraint_document(
        self, info: Info, id: strawberry.ID, input: EditConstraintDocumentInput
    ) -> ConstraintDocument:
        arguments = dataclasses.asdict(input)
        return await write(
            info, constraints.edit_document, ConstraintDocument, document_id=id, **arguments
        )
