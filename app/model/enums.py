"""Closed vocabularies of the graph model, shared by validation, Cypher and GraphQL."""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    AGENT = "agent"
    REVIEWER = "reviewer"
    ANALYST = "analyst"
    ADMIN = "admin"


class PlanStatus(StrEnum):
    DRAFT = "draft"
    REVIEWED = "reviewed"
    APPROVED = "approved"
    EXECUTING = "executing"
    COMPLETE = "complete"
    ARCHIVED = "archived"


class ObjectiveTag(StrEnum):
    LEADGEN = "leadgen"
    AUTHORITY = "authority"
    COMMUNITY = "community"
    RETENTION = "retention"


class Platform(StrEnum):
    IG = "ig"
    FB = "fb"
    TIKTOK = "tiktok"
    LINKEDIN = "linkedin"
    X = "x"
    YOUTUBE = "youtube"
    SKOOL = "skool"


class CreatedBy(StrEnum):
    HUMAN = "human"
    AGENT = "agent"


class PlanNodeType(StrEnum):
    OBJECTIVE = "objective"
    CAMPAIGN = "campaign"
    BLUEPRINT_INSTANCE = "blueprint_instance"
    POST_INTENT = "post_intent"
    ASSET_REQUIREMENT = "asset_requirement"
    APPROVAL_GATE = "approval_gate"
    PUBLISH_JOB = "publish_job"


class PlanNodeStatus(StrEnum):
    PENDING = "pending"
    READY = "ready"
    BLOCKED = "blocked"
    FAILED = "failed"
    COMPLETE = "complete"


class PlanEdgeType(StrEnum):
    """Each value is also the relationship type of the edge in the graph (upper-cased)."""

    DEPENDS_ON = "depends_on"
    PRODUCES = "produces"
    REFINES = "refines"
    REQUIRES_APPROVAL = "requires_approval"
    SCHEDULED_FOR = "scheduled_for"


class AssetType(StrEnum):
    COPY = "copy"
    IMAGE = "image"
    VIDEO_CLIP = "video_clip"
    VIDEO_SEQUENCE = "video_sequence"
    CAROUSEL = "carousel"
    STORY = "story"
    REEL = "reel"
    CAPTION_PACK = "caption_pack"
    HASHTAG_PACK = "hashtag_pack"
    VSL_SEGMENT_PACK = "vsl_segment_pack"


class AssetStatus(StrEnum):
    DRAFT = "draft"
    GENERATED = "generated"
    EDITED = "edited"
    APPROVED = "approved"
    PUBLISHED = "published"
    RETIRED = "retired"


class VariantFormat(StrEnum):
    FEED_POST = "feed_post"
    REEL = "reel"
    STORY = "story"
    SHORT = "short"
    LONG = "long"
    SKOOL_POST = "skool_post"
    COMMENT_REPLY = "comment_reply"
    DM_MESSAGE = "dm_message"


class VariantStatus(StrEnum):
    PENDING = "pending"
    READY = "ready"
    FAILED = "failed"
    APPROVED = "approved"
    PUBLISHED = "published"


class TaskClass(StrEnum):
    LLM_CREATOR = "llm.creator"
    IMAGE_GEN = "image.gen"
    VIDEO_GEN = "video.gen"
    AVATAR_GEN = "avatar.gen"


class ApprovalStatus(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"


class PackageStatus(StrEnum):
    QUEUED = "queued"
    SCHEDULED = "scheduled"
    PUBLISHING = "publishing"
    PUBLISHED = "published"
    FAILED = "failed"


class PublishRunStatus(StrEnum):
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class EvidenceKind(StrEnum):
    SCREENSHOT = "screenshot"
    LOG = "log"
    DOM_SNAPSHOT = "dom_snapshot"
    RESPONSE = "response"
    OTHER = "other"


class ConversationPlatform(StrEnum):
    """Seed 000, 5.2 names conversation platforms in full (unlike content platforms)."""

    INSTAGRAM = "instagram"
    FACEBOOK = "facebook"
    TIKTOK = "tiktok"
    LINKEDIN = "linkedin"
    YOUTUBE = "youtube"
    X = "x"
    SKOOL = "skool"


class ThreadType(StrEnum):
    DM = "dm"
    COMMENT_THREAD = "comment_thread"
    SKOOL_THREAD = "skool_thread"


class ThreadStatus(StrEnum):
    OPEN = "open"
    DORMANT = "dormant"
    ESCALATED = "escalated"
    CLOSED = "closed"


class HandoffState(StrEnum):
    NONE = "none"
    AWAITING_HUMAN = "awaiting_human"
    COMPLETED = "completed"


class EventDirection(StrEnum):
    INBOUND = "inbound"
    OUTBOUND = "outbound"


class ConversationEventType(StrEnum):
    DM_MESSAGE = "dm_message"
    COMMENT = "comment"
    REPLY = "reply"
    REACTION = "reaction"


class EngagementKind(StrEnum):
    LIKE = "like"
    COMMENT_REPLY = "comment_reply"
    DM_SENT = "dm_sent"
    DM_RECEIVED = "dm_received"
    FOLLOW = "follow"
    UNFOLLOW = "unfollow"
    POST_PUBLISHED = "post_published"
    POST_REJECTED = "post_rejected"
    MODERATION_ACTION = "moderation_action"
    ESCALATION = "escalation"


class EngagementActor(StrEnum):
    AI = "ai"
    HUMAN = "human"
    PLATFORM = "platform"


class EngagementResult(StrEnum):
    SUCCESS = "success"
    FAIL = "fail"
    PARTIAL = "partial"


class MetricType(StrEnum):
    IMPRESSIONS = "impressions"
    REACH = "reach"
    LIKES = "likes"
    COMMENTS = "comments"
    SHARES = "shares"
    SAVES = "saves"
    CLICKS = "clicks"
    REPLIES = "replies"
    DM_STARTS = "dm_starts"


class EpisodeTrigger(StrEnum):
    PLANNER_TICK = "planner_tick"
    WEBHOOK_EVENT = "webhook_event"
    HUMAN_REQUEST = "human_request"
    SCHEDULE = "schedule"


class EpisodeStatus(StrEnum):
    """`running` until the episode is closed with one of the seed's final statuses."""

    RUNNING = "running"
    SUCCESS = "success"
    FAILED = "failed"
    ABORTED = "aborted"
    ESCALATED = "escalated"


class LessonScope(StrEnum):
    GLOBAL = "global"
    CLIENT = "client"
    PLATFORM = "platform"
    BLUEPRINT = "blueprint"


class LessonType(StrEnum):
    WHAT_WORKED = "what_worked"
    WHAT_FAILED = "what_failed"
    VOICE_GUARDRAIL = "voice_guardrail"
    AUDIENCE_INSIGHT = "audience_insight"


class SnapshotPeriod(StrEnum):
    """A ClientSnapshot's window: a UTC calendar week (Monday 00:00 on) or month written on a
    schedule, or any window asked for (generateClientSnapshot)."""

    WEEKLY = "weekly"
    MONTHLY = "monthly"
    CUSTOM = "custom"


# The periods with calendar windows, written on a schedule (app/domain/lessons/windows.py).
SCHEDULED_PERIODS = (SnapshotPeriod.WEEKLY, SnapshotPeriod.MONTHLY)


class MemoryRelation(StrEnum):
    """MemoryLink relations (seed 000, 8.3; seed 004's memory relationships add reply_to,
    reference and follow_up); each value upper-cased is a relationship type."""

    SUPPORTS = "supports"
    CONTRADICTS = "contradicts"
    CAUSED = "caused"
    DERIVED_FROM = "derived_from"
    VALIDATES = "validates"
    REPLY_TO = "reply_to"
    REFERENCE = "reference"
    FOLLOW_UP = "follow_up"


class MemoryKind(StrEnum):
    """Kinds of general memory records (seeds 001-004)."""

    WORKING = "working"
    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"
    OBSERVATION = "observation"
    REFLECTION = "reflection"
    PLAN = "plan"
    RESULT = "result"


class ProcedureType(StrEnum):
    TEMPLATE = "template"
    RESPONSE_PATTERN = "response_pattern"
    WORKFLOW = "workflow"


class MemoryType(StrEnum):
    """Seed 004's memory_type of an entry: each maps onto one kind (MEMORY_TYPE_KINDS), which a
    record given only its memory type takes, so the kinds' readers (episodic search, semantic
    documents, session entries) find these records too."""

    CONVERSATION = "conversation"
    CONTEXT = "context"
    USER_PREFERENCE = "user_preference"
    AGENT_STATE = "agent_state"
    ENTITY = "entity"
    INTERACTION = "interaction"


MEMORY_TYPE_KINDS: dict[MemoryType, MemoryKind] = {
    MemoryType.CONVERSATION: MemoryKind.WORKING,
    MemoryType.CONTEXT: MemoryKind.WORKING,
    MemoryType.USER_PREFERENCE: MemoryKind.SEMANTIC,
    MemoryType.AGENT_STATE: MemoryKind.WORKING,
    MemoryType.ENTITY: MemoryKind.SEMANTIC,
    MemoryType.INTERACTION: MemoryKind.EPISODIC,
}


class MemorySessionStatus(StrEnum):
    """open -> flushed (endSession) <-> archived (archiveSession / unarchiveSession)."""

    OPEN = "open"
    FLUSHED = "flushed"
    ARCHIVED = "archived"


class AgentCycleStatus(StrEnum):
    PROPOSED = "proposed"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class AccessOutcome(StrEnum):
    OK = "ok"
    NOT_FOUND = "not_found"
    REJECTED = "rejected"
    ERROR = "error"


class ConstraintKind(StrEnum):
    """The documents a plan's ConstraintsSnapshot freezes (seed 000, 0.5 and 3.3)."""

    BRANDKIT = "brandkit"
    KNOWLEDGE_BASE = "knowledge_base"
    AUTONOMY_POLICIES = "autonomy_policies"
    PROVIDER_CONFIG = "provider_config"
    BLUEPRINT_SET = "blueprint_set"


class FactStatus(StrEnum):
    """A knowledge base fact is ACTIVE in the current version, SUPERSEDED once a later version
    changed or removed it (it stays, for the versions it belonged to)."""

    ACTIVE = "active"
    SUPERSEDED = "superseded"


class PersonaSection(StrEnum):
    """The sections of a persona's composite prompt (seed 003), in the order they are packed."""

    CORE = "core"
    RELATIONSHIP = "relationship"
    FACTS = "facts"
    RECENT_SESSIONS = "recent_sessions"
    PROCEDURES = "procedures"


class FactOutcome(StrEnum):
    """What endSession did with one extracted fact: a new memory, a new version of the one with
    its key, nothing (that key already says it), or nothing (another memory of the subject
    already says it)."""

    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    DUPLICATE = "duplicate"


class WorkspaceMemoryType(StrEnum):
    """What a WorkspaceMemory holds (seed 002's workspace memory types); getContext packs the
    first three as the workspace context's brand voice, ICPs and preferences."""

    BRAND_VOICE = "brand_voice"
    ICP = "icp"
    PREFERENCE = "preference"
    CUSTOM = "custom"


class MemoryIndexStatus(StrEnum):
    """A memory index (one embedding model for the deployment or one client, seeds 001 and 004):
    BUILDING while `reembed` fills it (search keeps the active one), ACTIVE once complete (search
    uses it), RETIRED once another took its place."""

    BUILDING = "building"
    ACTIVE = "active"
    RETIRED = "retired"


class ChangeAction(StrEnum):
    """What a write did to a record (the change feed)."""

    CREATED = "created"
    UPDATED = "updated"
    DELETED = "deleted"
