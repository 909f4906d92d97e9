"""The general agent-memory model (seeds 001-004): namespaced records, sessions, procedures,
agent cycles, feedback learning and the access log, in the same graph as seed 000's records."""

from __future__ import annotations

from neomodel import (
    ArrayProperty,
    BooleanProperty,
    DateTimeProperty,
    FloatProperty,
    IntegerProperty,
    JSONProperty,
    StringProperty,
    ZeroOrOne,
)

from app.model import enums as e
from app.model.facts import LabelFacts, Searchable
from app.model.nodes import Record, enum_property
from app.model.relationships import RelationshipFrom, RelationshipTo


class MemoryRecord(Record):
    """One memory. Its namespace is subject / agent / session / path; `namespace` is their
    canonical join, so that (client_id, namespace, key) identifies an upsertable record."""

    # No root fields: memory records are read through recall/memories (access-logged).
    facts = LabelFacts(
        graphql="app.api.types.memory",
        searchable=Searchable(("key", "text", "tags"), {"agent": "n.agent"}),
        forgettable=True,
    )

    subject = StringProperty()
    agent = StringProperty()
    session_id = StringProperty(index=True)
    path = ArrayProperty(StringProperty())
    namespace = StringProperty(required=True)
    key = StringProperty()
    kind = enum_property(e.MemoryKind, required=True)
    memory_type = enum_property(e.MemoryType, index=True)  # seed 004's type; sets the kind
    text = StringProperty()
    content = JSONProperty()
    content_uri = StringProperty()  # large content lives in object storage
    content_sha256 = StringProperty()
    content_size = IntegerProperty()
    tags = ArrayProperty(StringProperty())
    priority = IntegerProperty(required=True)  # 1-10
    source_agent = StringProperty()
    expires_at = DateTimeProperty()
    active = BooleanProperty(required=True)  # false once soft-deleted (forgotten)
    deleted_at = DateTimeProperty()
    version = IntegerProperty(required=True)
    timeline = StringProperty()  # working-memory sessions: the entry's timeline
    procedure_type = enum_property(e.ProcedureType)  # procedural records only

    versions = RelationshipTo("MemoryVersion", "HAS_VERSION", doc="Its superseded states.")
    summarizes = RelationshipTo("MemoryRecord", "SUMMARIZES", doc="Records this summary covers.")
    artifacts = RelationshipTo("MemoryArtifact", "HAS_ARTIFACT", doc="Verbatim attachments.")
    session = RelationshipFrom(
        "MemorySession", "HAS_ENTRY", ZeroOrOne, doc="The working-memory session it is an entry of."
    )
    remembered_by = RelationshipFrom(
        "Agent", "REMEMBERED", ZeroOrOne, doc="The agent of its namespace (REMEMBERED, incoming)."
    )
    learned_in = RelationshipFrom(
        "MemorySession", "LEARNED", doc="Sessions whose extracted facts named it (endSession)."
    )


class MemoryVersion(Record):
    """A superseded state of a MemoryRecord, kept for its history."""

    facts = LabelFacts(graphql="app.api.types.memory")

    record_id = StringProperty(required=True, index=True)
    version = IntegerProperty(required=True)
    kind = enum_property(e.MemoryKind)
    memory_type = enum_property(e.MemoryType)
    text = StringProperty()
    content = JSONProperty()
    content_uri = StringProperty()
    content_sha256 = StringProperty()
    content_size = IntegerProperty()
    tags = ArrayProperty(StringProperty())
    priority = IntegerProperty(required=True)
    source_agent = StringProperty()
    expires_at = DateTimeProperty()
    active = BooleanProperty(required=True)
    procedure_type = enum_property(e.ProcedureType)
    valid_from = DateTimeProperty()  # since when this state held (the record's updated_at then)

    record = RelationshipFrom(
        "MemoryRecord",
        "HAS_VERSION",
        ZeroOrOne,
        doc="The record it is a version of (HAS_VERSION, incoming).",
    )


class MemoryArtifact(Record):
    """A verbatim attachment (a transcript, a file) of a record or session, in object storage."""

    facts = LabelFacts(graphql="app.api.types.memory")

    owner_id = StringProperty(required=True, index=True)
    kind = StringProperty(required=True)
    uri = StringProperty(required=True)
    sha256 = StringProperty(required=True)
    size = IntegerProperty(required=True)
    content_type = StringProperty(required=True)

    produced_by = RelationshipFrom(
        "AgentCycle", "PRODUCED", doc="Agent cycles whose results produced it."
    )


class MemorySession(Record):
    """A working-memory session (seed 003): entries on timelines, flushed into a summary."""

    facts = LabelFacts(
        graphql="app.api.types.sessions",
        roots=("memory_session", "memory_sessions"),
    )

    agent = StringProperty()
    subject = StringProperty()
    status = enum_property(e.MemorySessionStatus, required=True)
    ended_at = DateTimeProperty()
    entry_count = IntegerProperty(required=True)
    summary_record_id = StringProperty()
    # Sessions (app/domain/sessions/repository.py): the caller's own handle (idempotent start),
    # free metadata, the timelines used, and the newest entry's created_at (entries are
    # ordered by created_at, kept strictly increasing under the session's lock).
    external_ref = StringProperty()
    metadata = JSONProperty()
    timelines = ArrayProperty(StringProperty())
    last_entry_at = DateTimeProperty()
    # Seed 004 (app/domain/sessions/archive.py): the session's type, and while archived, when
    # and the MemoryArtifact holding its entries' text and inline content.
    session_type = StringProperty(required=True, index=True)
    archived_at = DateTimeProperty()
    archive_artifact_id = StringProperty()
    # Expiry (seed 002, app/domain/expiry): the session's own TTL, slid forward by each entry
    # put, and the default TTL of its entries; the sweeper purges it once expires_at passes.
    ttl_seconds = IntegerProperty()
    entry_ttl_seconds = IntegerProperty()
    expires_at = DateTimeProperty(index=True)

    entries = RelationshipTo(
        "MemoryRecord",
        "HAS_ENTRY",
        doc="Live entries (HAS_ENTRY); deleted and expired ones are hidden.",
    )
    summary = RelationshipTo(
        "MemoryRecord",
        "SUMMARIZED_AS",
        ZeroOrOne,
        doc="The episodic summary (SUMMARIZED_AS), once flushed.",
    )
    artifacts = RelationshipTo(
        "MemoryArtifact", "HAS_ARTIFACT", doc="Transcripts and other verbatim records."
    )
    agent_states = RelationshipTo(
        "AgentSessionState", "HAS_AGENT_STATE", doc="Agents' states scoped to this session."
    )
    learned = RelationshipTo(
        "MemoryRecord", "LEARNED", doc="Semantic memories of the facts extracted at its end."
    )


class MemorySubject(Record):
    """The user (or other party) memories are about: profile, and relationship context with
    agents as RELATES_TO relationships (type, custom prompt, settings, counters)."""

    facts = LabelFacts(
        graphql="app.api.types.agent_memory",
        roots=("memory_subject", "memory_subjects"),
    )

    external_ref = StringProperty(required=True)
    display_name = StringProperty()
    profile = JSONProperty()
    preferences = JSONProperty()  # seed 004 user_profiles.preferences
    active = BooleanProperty(required=True)  # seed 004 is_active; informational, never a hide

    agents = RelationshipTo("Agent", "RELATES_TO", doc="Agents it has relationship context with.")


class AgentCycle(Record):
    """One think-act cycle of an agent (seed 001): proposal and result."""

    facts = LabelFacts(graphql="app.api.types.agent_memory", roots=("agent_cycle", "agent_cycles"))

    agent_name = StringProperty(required=True, index=True)
    sequence = IntegerProperty(required=True)
    thoughts = StringProperty()
    tool_call = JSONProperty()
    plan = JSONProperty()
    workspace_cues = ArrayProperty(StringProperty())  # paths in its workspace it proposes to use
    output = JSONProperty()
    error = StringProperty()
    status = enum_property(e.AgentCycleStatus, required=True)
    finished_at = DateTimeProperty()

    agent = RelationshipFrom("Agent", "HAS_CYCLE", ZeroOrOne, doc="The agent whose cycle it is.")
    memories = RelationshipTo("MemoryRecord", "PRODUCED", doc="Memory records the cycle produced.")
    workspace = RelationshipTo(
        "Workspace", "WORKS_IN", ZeroOrOne, doc="The workspace its workspaceCues are paths of."
    )
    files = RelationshipTo(
        "WorkspaceFileVersion", "PRODUCED", doc="Workspace file versions its result produced."
    )
    artifacts = RelationshipTo("MemoryArtifact", "PRODUCED", doc="Artifacts its result produced.")


class FeedbackEvent(Record):
    """Raw feedback on an agent's task, kept as history (seed 002 learn_from_feedback)."""

    facts = LabelFacts(
        graphql="app.api.types.agent_memory",
        roots=("feedback_event", "feedback_events"),
    )

    agent_name = StringProperty(required=True, index=True)
    task_type = StringProperty(required=True)
    success = BooleanProperty(required=True)
    rating = FloatProperty()
    patterns = ArrayProperty(StringProperty())
    comment = StringProperty()


class AgentPerformance(Record):
    """Learned counters per agent and task type, updated atomically from feedback."""

    facts = LabelFacts(
        graphql="app.api.types.agent_memory",
        roots=("agent_performance", "agent_performances"),
    )

    agent_name = StringProperty(required=True)
    task_type = StringProperty(required=True)
    total = IntegerProperty(required=True)
    successes = IntegerProperty(required=True)
    rating_sum = FloatProperty(required=True)
    rating_count = IntegerProperty(required=True)
    patterns = JSONProperty()  # {pattern: {count, rating_sum, rating_count}}

    feedback = RelationshipTo("FeedbackEvent", "LEARNED_FROM", doc="The feedback it learned from.")


class AccessLogEntry(Record):
    """One read or write of memory records (seed 004 access log)."""

    facts = LabelFacts(graphql="app.api.types.memory")

    operation = StringProperty(required=True)
    principal = StringProperty(required=True)
    key_id = StringProperty()  # the API key used (principal is its agent name, if any)
    role = StringProperty()
    target_type = StringProperty()
    target_id = StringProperty()
    outcome = enum_property(e.AccessOutcome, required=True)
    detail = StringProperty()
    # Filled from the HTTP request (app/domain/kernel/request_facts.py), seed 004's columns.
    session_id = StringProperty()
    request_id = StringProperty()
    request_data = JSONProperty()  # the request's variables, secrets and long values cut
    error_message = StringProperty()
    client_address = StringProperty()


MEMORY_MODEL: tuple[type[Record], ...] = (
    MemoryRecord,
    MemoryVersion,
    MemoryArtifact,
    MemorySession,
    MemorySubject,
    AgentCycle,
    FeedbackEvent,
    AgentPerformance,
    AccessLogEntry,
)
