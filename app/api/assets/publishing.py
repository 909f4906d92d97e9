"""Publish package and publish run mutations."""

from __future__ import annotations

import dataclasses

import strawberry

from app.api.assets import inputs as i
from app.api.context import Info
from app.api.idempotent import IdempotencyKey, create_once, idempotent
from app.api.inputs import given_fields
from app.api.read.nodes import load_written
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
        record = await create_once(
            info,
            lambda graph: assets.create_package(
                graph, principal=info.context.caller(), fields=dataclasses.asdict(input)
            ),
        )
        return await load_written(info, "PublishPackage", record)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Change target platforms or scheduledAt before publishing.")
    async def update_publish_package(
        self, info: Info, id: strawberry.ID, input: i.UpdatePublishPackageInput
    ) -> PublishPackage:
        record = await assets.update_package(
            info.context.graph,
            principal=info.context.caller(),
            package_id=id,
            changes=given_fields(input, required=frozenset({"target_platforms"})),
        )
        return await load_written(info, "PublishPackage", record)  # type: ignore[no-any-return]

    @strawberry.mutation(
        description="Move a package to another status; PUBLISHING needs every policy-required "
        "approval approved (APPROVAL_REQUIRED), PUBLISHED a succeeded run."
    )
    async def transition_publish_package(
        self, info: Info, id: strawberry.ID, to: PackageStatus
    ) -> PublishPackage:
        record = await assets.transition_package(
            info.context.graph, principal=info.context.caller(), package_id=id, target=to
        )
        return await load_written(info, "PublishPackage", record)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Start a run of a publishing package on one platform.")
    @idempotent
    async def start_publish_run(
        self, info: Info, input: i.StartPublishRunInput, idempotency_key: IdempotencyKey = None
    ) -> PublishRun:
        record = await create_once(
            info,
            lambda graph: assets.start_run(
                graph,
                principal=info.context.caller(),
                package_id=input.package_id,
                platform=input.platform,
            ),
        )
        return await load_written(info, "PublishRun", record)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Finish a run: SUCCEEDED (needs evidence) or FAILED.")
    async def finish_publish_run(
        self, info: Info, id: strawberry.ID, input: i.FinishPublishRunInput
    ) -> PublishRun:
        record = await assets.finish_run(
            info.context.graph,
            principal=info.context.caller(),
            run_id=id,
            status=input.status,
            external_ref=input.external_ref,
            error=input.error,
        )
        return await load_written(info, "PublishRun", record)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Attach evidence (screenshot, log, ...) to a publish run.")
    @idempotent
    async def add_publish_evidence(
        self, info: Info, input: i.AddPublishEvidenceInput, idempotency_key: IdempotencyKey = None
    ) -> EvidenceArtifact:
        data = i.upload_bytes(input.content_base64)
        record = await create_once(
            info,
            lambda graph: assets.add_evidence(
                graph,
                info.context.services.artifacts,
                principal=info.context.caller(),
                run_id=input.run_id,
                kind=input.kind,
                data=data or b"",
                content_type=input.content_type,
            ),
        )
        return await load_written(info, "EvidenceArtifact", record)  # type: ignore[no-any-return]
