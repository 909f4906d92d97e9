"""The graph model, declared once: labels, properties and relationships of every record.

The classes are declarations only (the service runs Cypher through its own executor). The
migrations in cypher/schema and the query compiler's relationship map are held to them by tests;
the GraphQL types take their fields from them, in declaration order: a field per property, then
one per relationship, described by its `doc` (app/api/types/model_fields.py,
app/model/relationships.py). Each class also declares its label's facts (GraphQL type and root
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
    StringProperty,
    StructuredNode,
    ZeroOrOne,
)

from app.model import enums as e
from app.model.facts import LabelFacts, Searchable
from app.model.relationships import RelationshipFrom, RelationshipTo


def _choices(enum: type[StrEnum]) -> dict[str, str]:
    return {member.value: member.value for member in enum}


class EnumProperty(StringProperty):
    """A string property holding one StrEnum's values; it keeps the enum, which is also the
    GraphQL type of the field (app/api/types/model_fields.py)."""

    def __init__(self, enum: type[StrEnum], *, required: bool = False, index: bool = False) -> None:
        super().__init__(choices=_choices(enum), required=required, index=index)
        self.enum = enum


def _enum(enum: type[StrEnum], *, required: bool = False, index: bool = False) -> EnumProperty:
    return EnumProperty(enum, required=required, index=index)


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
    last_used_at = DateTimeProperty()  # approximate: app/api/edge/key_cache.py
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

    nodes = RelationshipTo("PlanNode", "HAS_NODE", doc="The plan's nodes.")  # type: ignore[assignment]
    constraints = RelationshipTo(
        "ConstraintsSnapshot", "CONSTRAINED_BY", ZeroOrOne, doc="The snapshot frozen at approval."
    )
    packages = RelationshipFrom(
        "PublishPackage", "FOR_PLAN", doc="Publish packages built for this plan."
    )


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

    plan = RelationshipFrom("Plan", "HAS_NODE", ZeroOrOne, doc="The plan this node belongs to.")
    depends_on = RelationshipTo("PlanNode", "DEPENDS_ON", doc="Nodes this node depends on.")
    produces = RelationshipTo("PlanNode", "PRODUCES", doc="Nodes this node produces.")
    refines = RelationshipTo("PlanNode", "REFINES", doc="Nodes this node refines.")
    requires_approval = RelationshipTo(
        "PlanNode", "REQUIRES_APPROVAL", doc="Approval gates it requires."
    )
    scheduled_for = RelationshipTo(
        "PlanNode", "SCHEDULED_FOR", doc="Publish jobs it is scheduled for."
    )
    dependents = RelationshipFrom(
        "PlanNode", "DEPENDS_ON", doc="Nodes that depend on this one (DEPENDS_ON, incoming)."
    )
    produced_by = RelationshipFrom(
        "PlanNode", "PRODUCES", doc="Nodes that produce this one (PRODUCES, incoming)."
    )
    refined_by = RelationshipFrom(
        "PlanNode", "REFINES", doc="Nodes that refine this one (REFINES, incoming)."
    )
    assets = RelationshipFrom(
        "Asset", "FROM_BLUEPRINT", doc="Assets made from this blueprint node."
    )


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

    plans = RelationshipFrom("Plan", "CONSTRAINED_BY", doc="Plans constrained by this snapshot.")
    frozen = RelationshipTo(
        "ConstraintVersion", "FREEZES", doc="The document versions it froze, one per kind."
    )


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

    blueprint = RelationshipTo(
        "PlanNode", "FROM_BLUEPRINT", ZeroOrOne, doc="The blueprint plan node it came from."
    )
    variants = RelationshipTo("AssetVariant", "HAS_VARIANT", doc="Concrete versions per platform.")
    prompts = RelationshipFrom("PromptArtifact", "GENERATED", doc="Prompts that generated it.")
    approvals = RelationshipFrom("ApprovalRecord", "APPROVES", doc="Approvals of the asset.")


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

    asset = RelationshipFrom(
        "Asset", "HAS_VARIANT", ZeroOrOne, doc="The asset this is a variant of."
    )
    prompts = RelationshipFrom("PromptArtifact", "GENERATED", doc="Prompts that generated it.")
    approvals = RelationshipFrom("ApprovalRecord", "APPROVES", doc="Approvals of the variant.")
    packages = RelationshipFrom("PublishPackage", "INCLUDES", doc="Packages that include it.")


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

    generated_assets = RelationshipTo("Asset", "GENERATED", doc="Assets it generated.")
    generated_variants = RelationshipTo("AssetVariant", "GENERATED", doc="Variants it generated.")


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

    approved_asset = RelationshipTo("Asset", "APPROVES", ZeroOrOne, doc="The asset it approves.")
    approved_variant = RelationshipTo(
        "AssetVariant", "APPROVES", ZeroOrOne, doc="The variant it approves."
    )


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

    plan = RelationshipTo("Plan", "FOR_PLAN", ZeroOrOne, doc="The plan it publishes.")
    variants = RelationshipTo("AssetVariant", "INCLUDES", doc="The variants it includes.")
    runs = RelationshipTo("PublishRun", "HAS_RUN", doc="Attempts to publish it.")


class PublishRun(Record):
    facts = LabelFacts(graphql="app.api.types.publishing", roots=("publish_run", "publish_runs"))

    package_id = StringProperty(required=True, index=True)
    platform = _enum(e.Platform, required=True)
    status = _enum(e.PublishRunStatus, required=True)
    external_ref = StringProperty()
    error = StringProperty()
    finished_at = DateTimeProperty()

    package = RelationshipFrom(
        "PublishPackage", "HAS_RUN", ZeroOrOne, doc="The package this run published."
    )
    evidence = RelationshipTo(
        "EvidenceArtifact", "HAS_EVIDENCE", doc="Screenshots, logs and responses."
    )


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

    run = RelationshipFrom("PublishRun", "HAS_EVIDENCE", ZeroOrOne, doc="The run it documents.")


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
    # Expiry and cap (seed 002, app/domain/expiry): a TTL slid forward by each append, and the
    # last max_events events kept (those up to sequence trimmed_through were purged).
    ttl_seconds = IntegerProperty()
    expires_at = DateTimeProperty(index=True)
    max_events = IntegerProperty(index=True)
    trimmed_through = IntegerProperty()

    events = RelationshipTo("ConversationEvent", "HAS_EVENT", doc="The thread's events.")
    summaries = RelationshipTo("ThreadSummary", "HAS_SUMMARY", doc="Every summary version, kept.")
    engagement = RelationshipFrom(
        "EngagementEvent", "CONCERNS", doc="Engagement events about the thread."
    )


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

    thread = RelationshipFrom(
        "ConversationThread", "HAS_EVENT", ZeroOrOne, doc="The thread it belongs to."
    )


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

    thread = RelationshipFrom(
        "ConversationThread", "HAS_SUMMARY", ZeroOrOne, doc="The summarised thread."
    )


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

    asset = RelationshipTo("Asset", "CONCERNS", ZeroOrOne, doc="The asset it concerns.")
    variant = RelationshipTo("AssetVariant", "CONCERNS", ZeroOrOne, doc="The variant it concerns.")
    publish_run = RelationshipTo(
        "PublishRun", "CONCERNS", ZeroOrOne, doc="The publish run it concerns."
    )
    thread = RelationshipTo(
        "ConversationThread", "CONCERNS", ZeroOrOne, doc="The thread it concerns."
    )


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

    asset = RelationshipTo("Asset", "MEASURES", ZeroOrOne, doc="The asset measured.")
    variant = RelationshipTo("AssetVariant", "MEASURES", ZeroOrOne, doc="The variant measured.")
    plan = RelationshipTo("Plan", "MEASURES", ZeroOrOne, doc="The plan measured.")


class Agent(Record):
    facts = LabelFacts(graphql="app.api.types.agents", roots=("agent", "agents"))

    name = StringProperty(required=True)
    description = StringProperty()
    state = JSONProperty()  # resumable agent state (seeds 001, 004), replaced as a whole
    state_version = IntegerProperty()

    episodes = RelationshipTo("AgentEpisode", "RAN", doc="Episodes the agent ran.")
    cycles = RelationshipTo("AgentCycle", "HAS_CYCLE", doc="Its think-act cycles.")
    workspaces = RelationshipTo("Workspace", "HAS_WORKSPACE", doc="Its workspaces (seed 001).")
    memories = RelationshipTo(
        "MemoryRecord", "REMEMBERED", doc="Memory records of its namespace (live ones)."
    )
    config = RelationshipTo(
        "AgentConfigVersion",
        "CURRENT_CONFIG",
        ZeroOrOne,
        doc="Its directives and config overrides in force (the newest version).",
    )
    config_versions = RelationshipTo(
        "AgentConfigVersion", "HAS_CONFIG_VERSION", doc="Every version of its configuration."
    )
    session_states = RelationshipTo(
        "AgentSessionState",
        "HAS_SESSION_STATE",
        doc="Its state per session (saveAgentSessionState), beside its global state.",
    )


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

    agent = RelationshipFrom("Agent", "RAN", ZeroOrOne, doc="The agent that ran it.")
    parent = RelationshipFrom(
        "AgentEpisode", "SPAWNED", ZeroOrOne, doc="The episode that spawned it."
    )
    children = RelationshipTo("AgentEpisode", "SPAWNED", doc="Episodes it spawned.")
    read_plan_nodes = RelationshipTo("PlanNode", "READ", doc="Plan nodes it read.")
    read_assets = RelationshipTo("Asset", "READ", doc="Assets it read.")
    read_threads = RelationshipTo("ConversationThread", "READ", doc="Threads it read.")
    read_lessons = RelationshipTo("Lesson", "READ", doc="Lessons it read.")
    wrote_plan_nodes = RelationshipTo("PlanNode", "WROTE", doc="Plan nodes it wrote.")
    wrote_assets = RelationshipTo("Asset", "WROTE", doc="Assets it wrote.")
    wrote_threads = RelationshipTo("ConversationThread", "WROTE", doc="Threads it wrote.")
    wrote_engagement = RelationshipTo("EngagementEvent", "WROTE", doc="Engagement events it wrote.")
    wrote_lessons = RelationshipTo("Lesson", "WROTE", doc="Lessons it wrote.")


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

    evidence_metrics = RelationshipTo(
        "PerformanceMetric", "EVIDENCED_BY", doc="Metrics that evidence it."
    )
    evidence_episodes = RelationshipTo(
        "AgentEpisode", "EVIDENCED_BY", doc="Episodes that evidence it."
    )
    supersedes = RelationshipTo("Lesson", "SUPERSEDES", doc="Lessons it superseded.")
    superseded = RelationshipFrom(
        "Lesson", "SUPERSEDES", doc="The lesson that superseded it (SUPERSEDES, incoming)."
    )


class ClientSnapshot(Record):
    facts = LabelFacts(
        graphql="app.api.types.lessons",
        roots=("client_snapshot", "client_snapshots"),
    )

    period = _enum(e.SnapshotPeriod, required=True)
    time_window_start = DateTimeProperty(required=True)
    time_window_end = DateTimeProperty(required=True)
    # "<period>/<window start>" on weekly and monthly snapshots only: unique per client
    # (migration 0027), so a scheduled window is written once; custom windows may repeat.
    window_key = StringProperty(unique_index=True)
    top_assets = ArrayProperty(StringProperty())
    top_lessons = ArrayProperty(StringProperty())
    risks = JSONProperty()
    strategy_notes_uri = StringProperty()

    assets = RelationshipTo("Asset", "TOP_ASSET", doc="Top assets of the window.")
    lessons = RelationshipTo("Lesson", "TOP_LESSON", doc="Top lessons of the window.")


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
