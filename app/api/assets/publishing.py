"""Publish package and publish run mutations."""

from __future__ import annotations

import dataclasses

import strawberry

from app.api.assets import inputs as i
from app.api.context import Info
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.record_mutations import creates, transitions, updates
from app.api.resolve import write
from app.api.types.publishing import EvidenceArtifact, PublishPackage, PublishRun
from app.domain import assets
from app.model.enums import PackageStatus


@strawberry.type
class PublishingMutations:
    create_publish_package = creates(
        assets.create_package,
        PublishPackage,
        i.CreatePublishPackageInput,
        "Bundle variants of the client for a plan (status queued).",
    )
    update_publish_package = updates(
        assets.update_package,
        PublishPackage,
        i.UpdatePublishPackageInput,
        "Change target platforms or scheduledAt before publishing.",
        id_name="package_id",
        required=frozenset({"target_platforms"}),
    )
    transition_publish_package = transitions(
        assets.transition_package,
        PublishPackage,
        PackageStatus,
        "Move a package to another status; PUBLISHING needs every policy-required "
        "approval approved (APPROVAL_REQUIRED), PUBLISHED a succeeded run.",
        id_name="package_id",
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
