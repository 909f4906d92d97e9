"""Publish package and publish run mutations."""

from __future__ import annotations

import dataclasses

import strawberry

from app.api.assets import inputs as i
from app.api.context import Info
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.inputs import given_fields
from app.api.resolve import write
from app.api.types.publishing import EvidenceArtifact, PublishPackage, PublishRun
from app.domain import assets
from app.model.enums import PackageStatus


@strawberry.type
class PublishingMutations:
    @strawberry.mutation(description="Bundle variants of the client for a plan (status queued).")
    @idempotent
    async def create_publish_package(
        self, info: Info, input: i.CreatePublishPackageInput, idempotency_key: IdempotencyKey = None
    ) -> PublishPackage:
        fields = dataclasses.asdict(input)
        return await write(info, assets.create_package, PublishPackage, fields=fields)

    @strawberry.mutation(description="Change target platforms or scheduledAt before publishing.")
    async def update_publish_package(
        self, info: Info, id: strawberry.ID, input: i.UpdatePublishPackageInput
    ) -> PublishPackage:
        changes = given_fields(input, required=frozenset({"target_platforms"}))
        return await write(
            info, assets.update_package, PublishPackage, package_id=id, changes=changes
        )

    @strawberry.mutation(
        description="Move a package to another status; PUBLISHING needs every policy-required "
        "approval approved (APPROVAL_REQUIRED), PUBLISHED a succeeded run."
    )
    async def transition_publish_package(
        self, info: Info, id: strawberry.ID, to: PackageStatus
    ) -> PublishPackage:
        return await write(
            info, assets.transition_package, PublishPackage, package_id=id, target=to
        )

    @strawberry.mutation(description="Start a run of a publishing package on one platform.")
    @idempotent
    async def start_publish_run(
        self, info: Info, input: i.StartPublishRunInput, idempotency_key: IdempotencyKey = None
    ) -> PublishRun:
        return await write(
            info, assets.start_run, PublishRun, package_id=input.package_id, platform=input.platform
        )

    @strawberry.mutation(description="Finish a run: SUCCEEDED (needs evidence) or FAILED.")
    async def finish_publish_run(
        self, info: Info, id: strawberry.ID, input: i.FinishPublishRunInput
    ) -> PublishRun:
        finish = dataclasses.asdict(input)
        return await write(info, assets.finish_run, PublishRun, run_id=id, **finish)

    @strawberry.mutation(description="Attach evidence (screenshot, log, ...) to a publish run.")
    @idempotent
    async def add_publish_evidence(
        self, info: Info, input: i.AddPublishEvidenceInput, idempotency_key: IdempotencyKey = None
    ) -> EvidenceArtifact:
        return await write(
            info,
            assets.add_evidence,
            EvidenceArtifact,
            run_id=input.run_id,
            kind=input.kind,
            data=i.upload_bytes(input.content_base64) or b"",
            content_type=input.content_type,
        )
