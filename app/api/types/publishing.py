"""Publishing types (seed 000, 4.2.5 and section 10); fields held to app/model by tests."""

from __future__ import annotations

from datetime import datetime

import strawberry

from app.api.types.base import NodeType, node_type, to_many, to_one
from app.model.enums import EvidenceKind, PackageStatus, Platform, PublishRunStatus


@node_type("PublishPackage")
@strawberry.type(description="A bundle of variants ready to publish (seed 000, 4.2.5).")
class PublishPackage(NodeType):
    id: strawberry.ID
    plan_id: strawberry.ID
    target_platforms: list[Platform] | None
    variant_ids: list[strawberry.ID] | None
    scheduled_at: datetime | None
    status: PackageStatus
    created_at: datetime
    updated_at: datetime

    plan = to_one("Plan", "The plan it publishes (FOR_PLAN).")
    variants = to_many("AssetVariant", "The variants it includes (INCLUDES).")
    runs = to_many("PublishRun", "Attempts to publish it (HAS_RUN).")


@node_type("PublishRun")
@strawberry.type(description="One attempt to publish a package on a platform.")
class PublishRun(NodeType):
    id: strawberry.ID
    package_id: strawberry.ID
    platform: Platform
    status: PublishRunStatus
    external_ref: str | None
    error: str | None
    finished_at: datetime | None
    created_at: datetime
    updated_at: datetime

    package = to_one("PublishPackage", "The package this run published (HAS_RUN).")
    evidence = to_many("EvidenceArtifact", "Screenshots, logs and responses (HAS_EVIDENCE).")


@node_type("EvidenceArtifact")
@strawberry.type(description="Evidence of a publish run, stored in object storage.")
class EvidenceArtifact(NodeType):
    id: strawberry.ID
    run_id: strawberry.ID
    kind: EvidenceKind
    uri: str
    sha256: str
    size: int
    content_type: str
    created_at: datetime
    updated_at: datetime

    run = to_one("PublishRun", "The run it documents (HAS_EVIDENCE).")
