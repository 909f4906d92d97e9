"""Inputs of the asset graph and publishing mutations; uploads travel as base64 text."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from app.domain.kernel.errors import ValidationFailed
from app.model.enums import (
    ApprovalStatus,
    AssetType,
    CreatedBy,
    EvidenceKind,
    Platform,
    PublishRunStatus,
    TaskClass,
    VariantFormat,
)

DEFAULT_CONTENT_TYPE = "application/octet-stream"


def upload_bytes(content_base64: str | None) -> bytes | None:
    """The bytes of a `contentBase64` field (standard alphabet, padded); None when not sent."""
    if content_base64 is None:
        return None
    try:
        return base64.b64decode(content_base64, validate=True)
    except (binascii.Error, ValueError):
        raise ValidationFailed(
            "contentBase64 must be standard, padded base64", field="contentBase64"
        ) from None


@strawberry.input
class CreateAssetInput:
    asset_type: AssetType
    title: str
    created_by: CreatedBy
    summary: str | None = None
    primary_artifact_uri: str | None = None
    source_blueprint_instance_id: strawberry.ID | None = None


@strawberry.input(description="Only the fields given are changed; null clears an optional one.")
class UpdateAssetInput:
    title: str | None = strawberry.UNSET
    summary: str | None = strawberry.UNSET
    primary_artifact_uri: str | None = strawberry.UNSET


@strawberry.input(
    description="Give media as contentBase64 (stored first; checksum defaults to its SHA-256), "
    "or an existing artifactUri with a checksum."
)
class CreateAssetVariantInput:
    asset_id: strawberry.ID
    platform: Platform
    format: VariantFormat
    dimensions: JSON | None = None
    duration_seconds: float | None = None
    caption_text: str | None = None
    checksum: str | None = None
    artifact_uri: str | None = None
    content_base64: str | None = None
    content_type: str = DEFAULT_CONTENT_TYPE


@strawberry.input(description="Only the fields given are changed; null clears an optional one.")
class UpdateAssetVariantInput:
    caption_text: str | None = strawberry.UNSET
    dimensions: JSON | None = strawberry.UNSET
    duration_seconds: float | None = strawberry.UNSET


@strawberry.input(description="The assets and variants a prompt produced (GENERATED).")
class PromptOutputRefsInput:
    asset_ids: list[strawberry.ID] = strawberry.field(default_factory=list)
    variant_ids: list[strawberry.ID] = strawberry.field(default_factory=list)


@strawberry.input
class CreatePromptArtifactInput:
    task_class: TaskClass
    provider: str
    model: str
    prompt_text: str
    params: JSON | None = None
    input_refs: JSON | None = None
    output_refs: PromptOutputRefsInput | None = None


@strawberry.input(description="Exactly one of assetId and variantId.")
class CreateApprovalRecordInput:
    required_by_policy: bool
    asset_id: strawberry.ID | None = None
    variant_id: strawberry.ID | None = None
    notes: str | None = None
    content_base64: str | None = None
    content_type: str = DEFAULT_CONTENT_TYPE


@strawberry.input(description="APPROVED or REJECTED; optional evidence is stored first.")
class DecideApprovalInput:
    status: ApprovalStatus
    notes: str | None = None
    content_base64: str | None = None
    content_type: str = DEFAULT_CONTENT_TYPE


@strawberry.input
class CreatePublishPackageInput:
    plan_id: strawberry.ID
    variant_ids: list[strawberry.ID]
    target_platforms: list[Platform]
    scheduled_at: datetime | None = None


@strawberry.input(description="Only the fields given are changed; null clears scheduledAt.")
class UpdatePublishPackageInput:
    target_platforms: list[Platform] | None = strawberry.UNSET
    scheduled_at: datetime | None = strawberry.UNSET


@strawberry.input
class StartPublishRunInput:
    package_id: strawberry.ID
    platform: Platform


@strawberry.input(description="SUCCEEDED needs at least one evidence artifact on the run.")
class FinishPublishRunInput:
    status: PublishRunStatus
    external_ref: str | None = None
    error: str | None = None


@strawberry.input
class AddPublishEvidenceInput:
    run_id: strawberry.ID
    kind: EvidenceKind
    content_base64: str
    content_type: str = DEFAULT_CONTENT_TYPE
