"""The graph model, declared once: labels, properties and relationships of every record.

The classes are declarations only (the service runs Cypher through its own executor). The
migrations in cypher/schema, the query compiler's relationship map and the GraphQL types are
held to them by tests.
"""

from __future__ import annotations

from enum import StrEnum

from neomodel import (
    ArrayProperty,
    BooleanProperty,
    DateTimeProperty,
    FloatProperty,
    IntegerProperty,
    JSONProperty,
    RelationshipFrom,
    RelationshipTo,
    StringProperty,
    StructuredNode,
)

from app.model import enums as e


def _choices(enum: type[StrEnum]) -> dict[str, str]:
    return {member.value: member.value for member in enum}


def _enum(enum: type[StrEnum], *, required: bool = False, index: bool = False) -> StringProperty:
    return StringProperty(choices=_choices(enum), required=required, index=index)


class Record(StructuredNode):
    """Every node: a UUID, the owning client and timestamps."""

    __abstract_node__ = True
    id = StringProperty(unique_index=True, required=True)  # type: ignore[assignment]
    client_id = StringProperty(index=True, required=True)
    created_at = DateTimeProperty(required=True)
    updated_at = DateTimeProperty(required=True)


class Client(Record):
    name = StringProperty(unique_index=True, required=True)


class ApiKey(Record):
    key_hash = StringProperty(unique_index=True, required=True)
    prefix = StringProperty(required=True)
    role = _enum(e.Role, required=True)
    agent_name = StringProperty()
    revoked = BooleanProperty(default=False)


class Plan(Record):
    name = StringProperty(required=True)
    time_window_start = DateTimeProperty()
    time_window_end = DateTimeProperty()
    objective_tags = ArrayProperty(_enum(e.ObjectiveTag))
    target_platforms = ArrayProperty(_enum(e.Platform))
    status = _enum(e.PlanStatus, required=True, index=True)
    summary = StringProperty()
    constraints_ref = StringProperty()
    created_by = _enum(e.CreatedBy, required=True)

    nodes = RelationshipTo("PlanNode", "HAS_NODE")  # type: ignore[assignment]
    constraints = RelationshipTo("ConstraintsSnapshot", "CONSTRAINED_BY")
    packages = RelationshipFrom("PublishPackage", "FOR_PLAN")


class PlanNode(Record):
    plan_id = StringProperty(required=True, index=True)
    node_type = _enum(e.PlanNodeType, required=True)
    title = StringProperty(required=True)
    inputs = JSONProperty()
    summary = StringProperty()
    status = _enum(e.PlanNodeStatus, required=True)
    quality_score = IntegerProperty()
    cost_estimate = FloatProperty()

    plan = RelationshipFrom("Plan", "HAS_NODE")
    depends_on = RelationshipTo("PlanNode", "DEPENDS_ON")
    produces = RelationshipTo("PlanNode", "PRODUCES")
    refines = RelationshipTo("PlanNode", "REFINES")
    requires_approval = RelationshipTo("PlanNode", "REQUIRES_APPROVAL")
    scheduled_for = RelationshipTo("PlanNode", "SCHEDULED_FOR")
    dependents = RelationshipFrom("PlanNode", "DEPENDS_ON")
    produced_by = RelationshipFrom("PlanNode", "PRODUCES")
    refined_by = RelationshipFrom("PlanNode", "REFINES")
    assets = RelationshipFrom("Asset", "FROM_BLUEPRINT")


class ConstraintsSnapshot(Record):
    """Frozen when a plan is approved; never updated afterwards."""

    brandkit_version_id = StringProperty(required=True)
    kb_version_id = StringProperty(required=True)
    policies_version_id = StringProperty(required=True)
    provider_config_version_id = StringProperty(required=True)
    blueprint_set_version_id = StringProperty(required=True)
    notes = StringProperty()

    plans = RelationshipFrom("Plan", "CONSTRAINED_BY")


class Asset(Record):
    asset_type = _enum(e.AssetType, required=True)
    source_blueprint_instance_id = StringProperty(index=True)
    status = _enum(e.AssetStatus, required=True)
    title = StringProperty(required=True)
    summary = StringProperty()
    primary_artifact_uri = StringProperty()
    created_by = _enum(e.CreatedBy, required=True)

    blueprint = RelationshipTo("PlanNode", "FROM_BLUEPRINT")
    variants = RelationshipTo("AssetVariant", "HAS_VARIANT")
    prompts = RelationshipFrom("PromptArtifact", "GENERATED")
    approvals = RelationshipFrom("ApprovalRecord", "APPROVES")


class AssetVariant(Record):
    asset_id = StringProperty(required=True, index=True)
    platform = _enum(e.Platform, required=True)
    format = _enum(e.VariantFormat, required=True)
    dimensions = JSONProperty()
    duration_seconds = FloatProperty()
    caption_text = StringProperty()
    artifact_uri = StringProperty()
    checksum = StringProperty(required=True)
    status = _enum(e.VariantStatus, required=True)

    asset = RelationshipFrom("Asset", "HAS_VARIANT")
    prompts = RelationshipFrom("PromptArtifact", "GENERATED")
    approvals = RelationshipFrom("ApprovalRecord", "APPROVES")
    packages = RelationshipFrom("PublishPackage", "INCLUDES")


class PromptArtifact(Record):
    task_class = _enum(e.TaskClass, required=True)
    provider = StringProperty(required=True)
    model = StringProperty(required=True)
    params = JSONProperty()
    prompt_text_uri = StringProperty(required=True)
    prompt_sha256 = StringProperty(required=True)
    prompt_size = IntegerProperty(required=True)
    input_refs = JSONProperty()
    output_refs = JSONProperty()

    generated_assets = RelationshipTo("Asset", "GENERATED")
    generated_variants = RelationshipTo("AssetVariant", "GENERATED")


class ApprovalRecord(Record):
    asset_id = StringProperty(index=True)
    variant_id = StringProperty(index=True)
    required_by_policy = BooleanProperty(required=True)
    status = _enum(e.ApprovalStatus, required=True)
    reviewer_user_id = StringProperty()
    notes = StringProperty()
    evidence_uri = StringProperty()

    approved_asset = RelationshipTo("Asset", "APPROVES")
    approved_variant = RelationshipTo("AssetVariant", "APPROVES")


class PublishPackage(Record):
    plan_id = StringProperty(required=True, index=True)
    target_platforms = ArrayProperty(_enum(e.Platform))
    variant_ids = ArrayProperty(StringProperty())
    scheduled_at = DateTimeProperty()
    status = _enum(e.PackageStatus, required=True)

    plan = RelationshipTo("Plan", "FOR_PLAN")
    variants = RelationshipTo("AssetVariant", "INCLUDES")
    runs = RelationshipTo("PublishRun", "HAS_RUN")


class PublishRun(Record):
    package_id = StringProperty(required=True, index=True)
    platform = _enum(e.Platform, required=True)
    status = _enum(e.PublishRunStatus, required=True)
    external_ref = StringProperty()
    error = StringProperty()
    finished_at = DateTimeProperty()

    package = RelationshipFrom("PublishPackage", "HAS_RUN")
    evidence = RelationshipTo("EvidenceArtifact", "HAS_EVIDENCE")


class EvidenceArtifact(Record):
    run_id = StringProperty(required=True, index=True)
    kind = _enum(e.EvidenceKind, required=True)
    uri = StringProperty(required=True)
    sha256 = StringProperty(required=True)
    size = IntegerProperty(required=True)
    content_type = StringProperty(required=True)

    run = RelationshipFrom("PublishRun", "HAS_EVIDENCE")


MODEL: tuple[type[Record], ...] = (
    Client,
    ApiKey,
    Plan,
    PlanNode,
    ConstraintsSnapshot,
    Asset,
    AssetVariant,
    PromptArtifact,
    ApprovalRecord,
    PublishPackage,
    PublishRun,
    EvidenceArtifact,
)
