"""Asset, variant, prompt and approval mutations; publishing ones are merged in from
publishing.py. Resolvers are thin: the domain validates, writes and raises typed errors."""

from __future__ import annotations

import dataclasses

import strawberry
from strawberry.tools import merge_types

from app.api.assets import inputs as i
from app.api.assets import outputs as o
from app.api.assets.publishing import PublishingMutations
from app.api.context import Info
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.inputs import given_fields, input_arguments
from app.api.read.nodes import load_written_at
from app.api.resolve import run, write
from app.api.types.assets import ApprovalRecord, Asset, AssetVariant, PromptArtifact
from app.domain import assets
from app.model.enums import AssetStatus, VariantStatus


@strawberry.type
class AssetGraphMutations:
    @strawberry.mutation(description="Create a draft asset, optionally from a blueprint plan node.")
    @idempotent
    async def create_asset(
        self, info: Info, input: i.CreateAssetInput, idempotency_key: IdempotencyKey = None
    ) -> Asset:
        return await write(info, assets.create_asset, Asset, fields=dataclasses.asdict(input))

    @strawberry.mutation(description="Change an asset's title, summary or primary artifact.")
    async def update_asset(self, info: Info, id: strawberry.ID, input: i.UpdateAssetInput) -> Asset:
        changes = given_fields(input, required=frozenset({"title"}))
        return await write(info, assets.update_asset, Asset, asset_id=id, changes=changes)

    @strawberry.mutation(description="Move an asset to another status; INVALID_TRANSITION if not.")
    async def transition_asset(self, info: Info, id: strawberry.ID, to: AssetStatus) -> Asset:
        return await write(info, assets.transition_asset, Asset, asset_id=id, target=to)

    @strawberry.mutation(
        description="Create a pending variant; a checksum the client already has returns that "
        "variant with deduplicated: true."
    )
    async def create_asset_variant(
        self, info: Info, input: i.CreateAssetVariantInput
    ) -> o.CreateAssetVariantPayload:
        fields = dataclasses.asdict(input)
        written = await run(
            info,
            assets.create_variant,
            media=i.upload_bytes(fields.pop("content_base64")),
            content_type=fields.pop("content_type"),
            asset_id=fields.pop("asset_id"),
            fields=fields,
        )
        variant = await load_written_at(info, AssetVariant, written.variant, "variant")
        return o.CreateAssetVariantPayload(variant=variant, deduplicated=written.deduplicated)

    @strawberry.mutation(description="Change a variant's caption, dimensions or duration.")
    async def update_asset_variant(
        self, info: Info, id: strawberry.ID, input: i.UpdateAssetVariantInput
    ) -> AssetVariant:
        changes = given_fields(input)
        return await write(
            info, assets.update_variant, AssetVariant, variant_id=id, changes=changes
        )

    @strawberry.mutation(description="Move a variant to another status.")
    async def transition_asset_variant(
        self, info: Info, id: strawberry.ID, to: VariantStatus
    ) -> AssetVariant:
        return await write(info, assets.transition_variant, AssetVariant, variant_id=id, target=to)

    @strawberry.mutation(description="Record a prompt (text stored in object storage); immutable.")
    @idempotent
    async def create_prompt_artifact(
        self, info: Info, input: i.CreatePromptArtifactInput, idempotency_key: IdempotencyKey = None
    ) -> PromptArtifact:
        arguments = input_arguments(input, "prompt_text")
        return await write(info, assets.create_prompt, PromptArtifact, **arguments)

    @strawberry.mutation(description="Ask for an approval of one asset or one variant (pending).")
    @idempotent
    async def create_approval_record(
        self, info: Info, input: i.CreateApprovalRecordInput, idempotency_key: IdempotencyKey = None
    ) -> ApprovalRecord:
        fields = dataclasses.asdict(input)
        return await write(
            info,
            assets.create_approval,
            ApprovalRecord,
            evidence=i.upload_bytes(fields.pop("content_base64")),
            content_type=fields.pop("content_type"),
            fields=fields,
        )

    @strawberry.mutation(description="Approve or reject a pending approval (reviewer or admin).")
    async def decide_approval(
        self, info: Info, id: strawberry.ID, input: i.DecideApprovalInput
    ) -> ApprovalRecord:
        return await write(
            info,
            assets.decide_approval,
            ApprovalRecord,
            approval_id=id,
            decision=input.status,
            notes=input.notes,
            evidence=i.upload_bytes(input.content_base64),
            content_type=input.content_type,
        )


AssetMutations = merge_types("AssetMutations", (AssetGraphMutations, PublishingMutations))
