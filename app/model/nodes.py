"""The graph model, declared once: labels, properties and relationships of every record.

The classes are declarations only (the service runs Cypher through its own executor). The
migrations in cypher/schema, the query compiler's relationship map and the GraphQL types are
held to them by tests. Each class also declares its label's facts (GraphQL type and root
fields, search): app/model/facts.py.
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar

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
from app.model.facts import LabelFacts, Searchable


def _choices(enum: type[StrEnum]) -> dict[str, str]:
    return {member.value: member.value for member in enum}


def _enum(enum: type[StrEnum], *, required: bool = False, index: bool = False) -> StringProperty:
    return StringProperty(choices=_choices(enum), required=required, index=index)


enum_property = _enum


class Record(StructuredNode):
    """Every node: a UUID, the owning client and timestamps."""

    __abstract_node__ = True
    # What the service does with the label besides storing it (app/model/facts.py).
    facts: ClassVar[LabelFacts] = LabelFacts()
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
    revoked_at = DateTimeProperty()
    expires_at = DateTimeProperty()
    last_used_at = DateTimeProperty()  # approximate: app/web/key_cache.py
    rotated_from = StringProperty()  # the id of the key this one replaced


class Plan(Record):
    facts = LabelFacts(
        graphql="app.api.types.plans",
        roots=("plan", "plans"),
        searchable=Searchable(("name", "summary"), {"plan_id": "n.id"}),
    )

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
    facts = LabelFacts(
        graphql="app.api.types.plans",
        roots=("plan_node", "plan_nodes"),
        searchable=Searchable(("title", "summary"), {"plan_id": "n.plan_id"}),
    )

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

    facts = LabelFacts(
        graphql="app.api.types.plans",
        roots=("constraints_snapshot", "constraints_snapshots"),
    )

    brandkit_version_id = StringProperty(required=True)
    kb_version_id = StringProperty(required=True)
    policies_version_id = StringProperty(required=True)
    provider_config_version_id = StringProperty(required=True)
    blueprint_set_version_id = StringProperty(required=True)
    notes = StringProperty()

    plans = RelationshipFrom("Plan", "CONSTRAINED_BY")


class Asset(Record):
    facts = LabelFacts(
        graphql="app.api.types.assets",
        roots=("asset", "assets"),
        searchable=Searchable(
            ("title", "summary"),
            {"plan_id": "head([(n)-[:FROM_BLUEPRINT]->(b:PlanNode) | b.plan_id])"},
        ),
    )

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
    facts = LabelFacts(graphql="app.api.types.assets", roots=("asset_variant", "asset_variants"))

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
    facts = LabelFacts(
        graphql="app.api.types.assets",
        roots=("prompt_artifact", "prompt_artifacts"),
    )

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
    facts = LabelFacts(
        graphql="app.api.types.assets",
        roots=("approval_record", "approval_records"),
    )

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
    facts = LabelFacts(
        graphql="app.api.types.publishing",
        roots=("publish_package", "publish_packages"),
    )

    plan_id = StringProperty(required=True, index=True)
    target_platforms = ArrayProperty(_enum(e.Platform))
    variant_ids = ArrayProperty(StringProperty())
    scheduled_at = DateTimeProperty()
    status = _enum(e.PackageStatus, required=True)

    plan = RelationshipTo("Plan", "FOR_PLAN")
    variants = RelationshipTo("AssetVariant", "INCLUDES")
    runs = RelationshipTo("PublishRun", "HAS_RUN")


class PublishRun(Record):
    facts = LabelFacts(graphql="app.api.types.publishing", roots=("publish_run", "publish_runs"))

    package_id = StringProperty(required=True, index=True)
    platform = _enum(e.Platform, required=True)
    status = _enum(e.PublishRunStatus, required=True)
    external_ref = StringProperty()
    error = StringProperty()
    finished_at = DateTimeProperty()

    package = RelationshipFrom("PublishPackage", "HAS_RUN")
    evidence = RelationshipTo("EvidenceArtifact", "HAS_EVIDENCE")


class EvidenceArtifact(Record):
    facts = LabelFacts(
        graphql="app.api.types.publishing",
        roots=("evidence_artifact", "evidence_artifacts"),
    )

    run_id = StringProperty(required=True, index=True)
    kind = _enum(e.EvidenceKind, required=True)
    uri = StringProperty(required=True)
    sha256 = StringProperty(required=True)
    size = IntegerProperty(required=True)
    content_type = StringProperty(required=True)

    run = RelationshipFrom("PublishRun", "HAS_EVIDENCE")


class ConversationThread(Record):
    facts = LabelFacts(
        graphql="app.api.types.conversations",
        roots=("conversation_thread", "conversation_threads"),
        searchable=Searchable(("summary_short",), {"thread_id": "n.id"}),
    )

    platform = _enum(e.ConversationPlatform, required=True)
    thread_type = _enum(e.ThreadType, required=True)
    external_thread_ref = StringProperty(required=True)
    participant_external_ref = StringProperty()
    status = _enum(e.ThreadStatus, required=True)
    last_event_at = DateTimeProperty()
    safety_flags = JSONProperty()
    summary_short = StringProperty()
    summary_long_uri = StringProperty()
    open_questions = JSONProperty()
    handoff_state = _enum(e.HandoffState, required=True)
    event_count = IntegerProperty(required=True)
    events_since_summary = IntegerProperty(required=True)
    summary_version = IntegerProperty(required=True)
    needs_summary = BooleanProperty(required=True)
    needs_summary_reason = StringProperty()
    needs_summary_since = DateTimeProperty()  # when it joined the summary queue

    events = RelationshipTo("ConversationEvent", "HAS_EVENT")
    summaries = RelationshipTo("ThreadSummary", "HAS_SUMMARY")
    engagement = RelationshipFrom("EngagementEvent", "CONCERNS")


class ConversationEvent(Record):
    facts = LabelFacts(
        graphql="app.api.types.conversations",
        roots=("conversation_event", "conversation_events"),
        searchable=Searchable(
            ("text", "metadata"),
            {"thread_id": "n.thread_id"},
            conversational=True,
            stored_text="text_uri",
        ),
    )

    thread_id = StringProperty(required=True, index=True)
    platform = _enum(e.ConversationPlatform, required=True)
    direction = _enum(e.EventDirection, required=True)
    event_type = _enum(e.ConversationEventType, required=True)
    external_ref = StringProperty(required=True)
    sequence = IntegerProperty(required=True)
    text = StringProperty()
    text_uri = StringProperty()
    text_sha256 = StringProperty()
    media_uris = ArrayProperty(StringProperty())
    metadata = JSONProperty()

    thread = RelationshipFrom("ConversationThread", "HAS_EVENT")


class ThreadSummary(Record):
    """One version of a thread's summary; versions are kept, never overwritten."""

    facts = LabelFacts(
        graphql="app.api.types.conversations",
        roots=("thread_summary", "thread_summaries"),
    )

    thread_id = StringProperty(required=True, index=True)
    version = IntegerProperty(required=True)
    summary_short = StringProperty(required=True)
    summary_long_uri = StringProperty()
    author = StringProperty(required=True)
    method = StringProperty(required=True)
    events_covered = IntegerProperty(required=True)

    thread = RelationshipFrom("ConversationThread", "HAS_SUMMARY")


class EngagementEvent(Record):
    facts = LabelFacts(
        graphql="app.api.types.engagement",
        roots=("engagement_event", "engagement_events"),
    )

    platform = _enum(e.Platform, required=True)
    event_kind = _enum(e.EngagementKind, required=True)
    external_ref = StringProperty()
    actor = _enum(e.EngagementActor, required=True)
    linked_asset_id = StringProperty(index=True)
    variant_id = StringProperty(index=True)
    publish_run_id = StringProperty(index=True)
    thread_id = StringProperty(index=True)
    payload = JSONProperty()
    result = _enum(e.EngagementResult, required=True)
    failure_reason = StringProperty()

    asset = RelationshipTo("Asset", "CONCERNS")
    variant = RelationshipTo("AssetVariant", "CONCERNS")
    publish_run = RelationshipTo("PublishRun", "CONCERNS")
    thread = RelationshipTo("ConversationThread", "CONCERNS")


class PerformanceMetric(Record):
    """Ids are chosen by the client, so they are unique per client only (migration 0009)."""

    facts = LabelFacts(
        graphql="app.api.types.engagement",
        roots=("performance_metric", "performance_metrics"),
    )

    platform = _enum(e.Platform, required=True)
    asset_id = StringProperty(index=True)
    variant_id = StringProperty(index=True)
    plan_id = StringProperty(index=True)
    metric_type = _enum(e.MetricType, required=True)
    value = FloatProperty(required=True)
    window_start = DateTimeProperty(required=True)
    window_end = DateTimeProperty(required=True)

    asset = RelationshipTo("Asset", "MEASURES")
    variant = RelationshipTo("AssetVariant", "MEASURES")
    plan = RelationshipTo("Plan", "MEASURES")


class Agent(Record):
    facts = LabelFacts(graphql="app.api.types.agents", roots=("agent", "agents"))

    name = StringProperty(required=True)
    description = StringProperty()
    state = JSONProperty()  # resumable agent state (seeds 001, 004), replaced as a whole
    state_version = IntegerProperty()

    episodes = RelationshipTo("AgentEpisode", "RAN")
    cycles = RelationshipTo("AgentCycle", "HAS_CYCLE")


class AgentEpisode(Record):
    facts = LabelFacts(
        graphql="app.api.types.agents",
        roots=("agent_episode", "agent_episodes"),
        searchable=Searchable(("task_class", "output_summary"), {"agent": "n.agent_name"}),
    )

    agent_name = StringProperty(required=True, index=True)
    task_class = StringProperty(required=True)
    trigger = _enum(e.EpisodeTrigger, required=True)
    input_refs = JSONProperty()
    retrieval_refs = JSONProperty()
    tool_call_log_uri = StringProperty()
    tool_call_log_sha256 = StringProperty()
    output_summary = StringProperty()
    status = _enum(e.EpisodeStatus, required=True)
    cost_tokens_est = IntegerProperty()
    latency_ms = IntegerProperty()
    parent_episode_id = StringProperty(index=True)
    closed_at = DateTimeProperty()
    # The tool-call log: entries, appends (one pending S3 chunk each, concatenated into the
    # final log at close) and bytes of tool-call lines so far; final after close.
    tool_call_count = IntegerProperty()
    tool_call_appends = IntegerProperty()
    tool_call_bytes = IntegerProperty()

    agent = RelationshipFrom("Agent", "RAN")
    parent = RelationshipFrom("AgentEpisode", "SPAWNED")
    children = RelationshipTo("AgentEpisode", "SPAWNED")
    read_plan_nodes = RelationshipTo("PlanNode", "READ")
    read_assets = RelationshipTo("Asset", "READ")
    read_threads = RelationshipTo("ConversationThread", "READ")
    read_lessons = RelationshipTo("Lesson", "READ")
    wrote_plan_nodes = RelationshipTo("PlanNode", "WROTE")
    wrote_assets = RelationshipTo("Asset", "WROTE")
    wrote_threads = RelationshipTo("ConversationThread", "WROTE")
    wrote_engagement = RelationshipTo("EngagementEvent", "WROTE")
    wrote_lessons = RelationshipTo("Lesson", "WROTE")


class Lesson(Record):
    """EpisodicMemory (seed 000, 8.1): confidence decays; superseded, never deleted."""

    facts = LabelFacts(
        graphql="app.api.types.lessons",
        roots=("lesson", "lessons"),
        searchable=Searchable(("statement",), {"scope": "n.scope"}),
    )

    scope = _enum(e.LessonScope, required=True)
    lesson_type = _enum(e.LessonType, required=True)
    statement = StringProperty(required=True)
    evidence_refs = JSONProperty()
    confidence = FloatProperty(required=True)
    decay_half_life_days = FloatProperty(required=True)
    last_evidence_at = DateTimeProperty(required=True)
    valid_from = DateTimeProperty(required=True)
    valid_to = DateTimeProperty()
    superseded_by = StringProperty()
    retired = BooleanProperty(required=True)

    evidence_metrics = RelationshipTo("PerformanceMetric", "EVIDENCED_BY")
    evidence_episodes = RelationshipTo("AgentEpisode", "EVIDENCED_BY")
    supersedes = RelationshipTo("Lesson", "SUPERSEDES")
    superseded = RelationshipFrom("Lesson", "SUPERSEDES")


class ClientSnapshot(Record):
    facts = LabelFacts(
        graphql="app.api.types.lessons",
        roots=("client_snapshot", "client_snapshots"),
    )

    time_window_start = DateTimeProperty(required=True)
    time_window_end = DateTimeProperty(required=True)
    top_assets = ArrayProperty(StringProperty())
    top_lessons = ArrayProperty(StringProperty())
    risks = JSONProperty()
    strategy_notes_uri = StringProperty()

    assets = RelationshipTo("Asset", "TOP_ASSET")
    lessons = RelationshipTo("Lesson", "TOP_LESSON")


SEED_MODEL: tuple[type[Record], ...] = (
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
    ConversationThread,
    ConversationEvent,
    ThreadSummary,
    EngagementEvent,
    PerformanceMetric,
    Agent,
    AgentEpisode,
    Lesson,
    ClientSnapshot,
)
