"""Asset, variant, prompt and approval mutations (publishing ones: publishing.py). Resolvers
are thin: the domain validates, writes and raises typed errors."""

from __future__ import annotations

import dataclasses

import strawberry

from app.api.assets import inputs as i
from app.api.assets import outputs as o
from app.api.context import Info
from app.api.idempotent import IdempotencyKey, idempotent
from app.api.record_mutations import creates, transitions, updates
from app.api.resolve import load_payload, run, write
from app.api.types.assets import ApprovalRecord, Asset, AssetVariant, PromptArtifact
from app.domain import assets
from app.model.enums import AssetStatus, VariantStatus


@strawberry.type
class AssetGraphMutations:
    create_asset = creates(
        assets.create_asset,
        Asset,
        i.CreateAssetInput,
        "Create a draft asset, optionally from a blueprint plan node.",
    )
    update_asset = updates(
        assets.update_asset,
        Asset,
        i.UpdateAssetInput,
        "Change an asset's title, summary or primary artifact.",
        id_name="asset_id",
        required=frozenset({"title"}),
    )
    transition_asset = transitions(
        assets.transition_asset,
        Asset,
        AssetStatus,
        "Move an asset to another status; INVALID_TRANSITION if not.",
        id_name="asset_id",
    )

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
        return await load_payload(info, o.CreateAssetVariantPayload, written)

    update_asset_variant = updates(
        assets.update_variant,
        AssetVariant,
        i.UpdateAssetVariantInput,
        "Change a variant's caption, dimensions or duration.",
        id_name="variant_id",
    )
    transition_asset_variant = transitions(
        assets.transition_variant,
        AssetVariant,
        VariantStatus,
        "Move a variant to another status.",
        id_name="variant_id",
    )
    create_prompt_artifact = creates(
        assets.create_prompt,
        PromptArtifact,
        i.CreatePromptArtifactInput,
        "Record a prompt (text stored in object storage); immutable.",
        apart=("prompt_text",),
    )

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
