"""Asset, variant, prompt and approval mutations; publishing ones are merged in from
publishing.py. Resolvers are thin: the domain validates, writes and raises typed errors."""

from __future__ import annotations

import dataclasses
from typing import Any

import strawberry
from strawberry.tools import merge_types

from app.api.assets import inputs as i
from app.api.assets import outputs as o
from app.api.assets.publishing import PublishingMutations
from app.api.context import Info
from app.api.idempotent import IdempotencyKey, create_once, idempotent
from app.api.inputs import given_fields
from app.api.read.nodes import load_written, load_written_at
from app.api.types.assets import ApprovalRecord, Asset, AssetVariant, PromptArtifact
from app.domain import assets
from app.graph.executor import GraphExecutor
from app.model.enums import AssetStatus, VariantStatus


@strawberry.type
class AssetGraphMutations:
    @strawberry.mutation(description="Create a draft asset, optionally from a blueprint plan node.")
    @idempotent
    async def create_asset(
        self, info: Info, input: i.CreateAssetInput, idempotency_key: IdempotencyKey = None
    ) -> Asset:
        record = await create_once(
            info,
            lambda graph: assets.create_asset(
                graph,
                info.context.services.artifacts,
                principal=info.context.caller(),
                fields=dataclasses.asdict(input),
            ),
        )
        return await load_written(info, "Asset", record)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Change an asset's title, summary or primary artifact.")
    async def update_asset(self, info: Info, id: strawberry.ID, input: i.UpdateAssetInput) -> Asset:
        record = await assets.update_asset(
            info.context.graph,
            info.context.services.artifacts,
            principal=info.context.caller(),
            asset_id=id,
            changes=given_fields(input, required=frozenset({"title"})),
        )
        return await load_written(info, "Asset", record)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Move an asset to another status; INVALID_TRANSITION if not.")
    async def transition_asset(self, info: Info, id: strawberry.ID, to: AssetStatus) -> Asset:
        record = await assets.transition_asset(
            info.context.graph, principal=info.context.caller(), asset_id=id, target=to
        )
        return await load_written(info, "Asset", record)  # type: ignore[no-any-return]

    @strawberry.mutation(
        description="Create a pending variant; a checksum the client already has returns that "
        "variant with deduplicated: true."
    )
    async def create_asset_variant(
        self, info: Info, input: i.CreateAssetVariantInput
    ) -> o.CreateAssetVariantPayload:
        fields = dataclasses.asdict(input)
        media = i.upload_bytes(fields.pop("content_base64"))
        content_type = fields.pop("content_type")
        asset_id = fields.pop("asset_id")
        written = await assets.create_variant(
            info.context.graph,
            info.context.services.artifacts,
            principal=info.context.caller(),
            asset_id=asset_id,
            fields=fields,
            media=media,
            content_type=content_type,
        )
        variant = await load_written_at(info, "AssetVariant", written.variant, "variant")
        return o.CreateAssetVariantPayload(variant=variant, deduplicated=written.deduplicated)

    @strawberry.mutation(description="Change a variant's caption, dimensions or duration.")
    async def update_asset_variant(
        self, info: Info, id: strawberry.ID, input: i.UpdateAssetVariantInput
    ) -> AssetVariant:
        record = await assets.update_variant(
            info.context.graph,
            principal=info.context.caller(),
            variant_id=id,
            changes=given_fields(input),
        )
        return await load_written(info, "AssetVariant", record)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Move a variant to another status.")
    async def transition_asset_variant(
        self, info: Info, id: strawberry.ID, to: VariantStatus
    ) -> AssetVariant:
        record = await assets.transition_variant(
            info.context.graph, principal=info.context.caller(), variant_id=id, target=to
        )
        return await load_written(info, "AssetVariant", record)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Record a prompt (text stored in object storage); immutable.")
    @idempotent
    async def create_prompt_artifact(
        self, info: Info, input: i.CreatePromptArtifactInput, idempotency_key: IdempotencyKey = None
    ) -> PromptArtifact:
        async def create(graph: GraphExecutor) -> dict[str, Any]:
            fields = dataclasses.asdict(input)  # anew on every run: it may be retried
            return await assets.create_prompt(
                graph,
                info.context.services.artifacts,
                principal=info.context.caller(),
                prompt_text=fields.pop("prompt_text"),
                fields=fields,
            )

        record = await create_once(info, create)
        return await load_written(info, "PromptArtifact", record)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Ask for an approval of one asset or one variant (pending).")
    @idempotent
    async def create_approval_record(
        self, info: Info, input: i.CreateApprovalRecordInput, idempotency_key: IdempotencyKey = None
    ) -> ApprovalRecord:
        evidence = i.upload_bytes(input.content_base64)

        async def create(graph: GraphExecutor) -> dict[str, Any]:
            fields = dataclasses.asdict(input)  # anew on every run: it may be retried
            del fields["content_base64"]
            return await assets.create_approval(
                graph,
                info.context.services.artifacts,
                principal=info.context.caller(),
                evidence=evidence,
                content_type=fields.pop("content_type"),
                fields=fields,
            )

        record = await create_once(info, create)
        return await load_written(info, "ApprovalRecord", record)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Approve or reject a pending approval (reviewer or admin).")
    async def decide_approval(
        self, info: Info, id: strawberry.ID, input: i.DecideApprovalInput
    ) -> ApprovalRecord:
        record = await assets.decide_approval(
            info.context.graph,
            info.context.services.artifacts,
            principal=info.context.caller(),
            approval_id=id,
            decision=input.status,
            notes=input.notes,
            evidence=i.upload_bytes(input.content_base64),
            content_type=input.content_type,
        )
        return await load_written(info, "ApprovalRecord", record)  # type: ignore[no-any-return]


AssetMutations = merge_types("AssetMutations", (AssetGraphMutations, PublishingMutations))
