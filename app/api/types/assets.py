"""Asset graph types (seed 000, 4.2); their fields are held to app/model by tests."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry
from strawberry.scalars import JSON

from app.api.context import Info
from app.api.types.base import NodeType, node_type, to_many, to_one
from app.domain.assets import prompts
from app.model.enums import (
    ApprovalStatus,
    AssetStatus,
    AssetType,
    CreatedBy,
    Platform,
    TaskClass,
    VariantFormat,
    VariantStatus,
)


@node_type("Asset")
@strawberry.type(description="A logical creative object (seed 000, 4.2.1).")
class Asset(NodeType):
    id: strawberry.ID
    asset_type: AssetType
    source_blueprint_instance_id: strawberry.ID | None
    status: AssetStatus
    title: str
    summary: str | None
    primary_artifact_uri: str | None
    created_by: CreatedBy
    created_at: datetime
    updated_at: datetime

    blueprint = to_one("PlanNode", "The blueprint plan node it came from (FROM_BLUEPRINT).")
    variants = to_many("AssetVariant", "Concrete versions per platform (HAS_VARIANT).")
    prompts = to_many("PromptArtifact", "Prompts that generated it (GENERATED).")
    approvals = to_many("ApprovalRecord", "Approvals of the asset (APPROVES).")


@node_type("AssetVariant")
@strawberry.type(description="A concrete version of an asset for a platform (seed 000, 4.2.2).")
class AssetVariant(NodeType):
    id: strawberry.ID
    asset_id: strawberry.ID
    platform: Platform
    format: VariantFormat
    dimensions: JSON | None
    duration_seconds: float | None
    caption_text: str | None
    artifact_uri: str | None
    checksum: str
    status: VariantStatus
    created_at: datetime
    updated_at: datetime

    asset = to_one("Asset", "The asset this is a variant of (HAS_VARIANT).")
    prompts = to_many("PromptArtifact", "Prompts that generated it (GENERATED).")
    approvals = to_many("ApprovalRecord", "Approvals of the variant (APPROVES).")
    packages = to_many("PublishPackage", "Packages that include it (INCLUDES).")


@node_type("PromptArtifact")
@strawberry.type(description="A prompt used for generation; text in object storage (4.2.3).")
class PromptArtifact(NodeType):
    __needs__ = frozenset({"prompt_text_uri"})  # promptText, promptTextUrl

    id: strawberry.ID
    task_class: TaskClass
    provider: str
    model: str
    params: JSON | None
    prompt_text_uri: str
    prompt_sha256: str
    prompt_size: int
    input_refs: JSON | None
    output_refs: JSON | None
    created_at: datetime
    updated_at: datetime

    generated_assets = to_many("Asset", "Assets it generated (GENERATED).")
    generated_variants = to_many("AssetVariant", "Variants it generated (GENERATED).")

    @strawberry.field(description="The prompt text, read back from object storage.")
    async def prompt_text(self, info: Info) -> str:
        return await prompts.prompt_text(
            info.context.services.artifacts, principal=info.context.caller(), prompt=self._stored()
        )

    @strawberry.field(description="A presigned GET URL for the prompt text (15 minutes).")
    async def prompt_text_url(self, info: Info) -> str:
        return await prompts.prompt_text_url(
            info.context.services.artifacts, principal=info.context.caller(), prompt=self._stored()
        )

    def _stored(self) -> dict[str, Any]:
        return {"id": str(self.id), "prompt_text_uri": self.prompt_text_uri}


@node_type("ApprovalRecord")
@strawberry.type(description="A human approval gate for an asset or variant (4.2.4).")
class ApprovalRecord(NodeType):
    id: strawberry.ID
    asset_id: strawberry.ID | None
    variant_id: strawberry.ID | None
    required_by_policy: bool
    status: ApprovalStatus
    reviewer_user_id: str | None
    notes: str | None
    evidence_uri: str | None
    created_at: datetime
    updated_at: datetime

    approved_asset = to_one("Asset", "The asset it approves (APPROVES).")
    approved_variant = to_one("AssetVariant", "The variant it approves (APPROVES).")
