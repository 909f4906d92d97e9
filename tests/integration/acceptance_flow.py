"""GraphQL documents and small helpers for the seed 000 section 10 acceptance test: one agent
team's flow for one client, built only through the public API."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlparse

from app.settings import Settings
from tests.integration.asset_helpers import b64, principal_of, store_for
from tests.integration.conftest import Caller

CREATE_GRAPH = """mutation($input: CreatePlanGraphInput!) {
  createPlanGraph(input: $input) { plan { id status } keys { key nodeId } } }"""
TRANSITION_PLAN = """mutation($id: ID!, $to: PlanStatus!, $c: ConstraintsSnapshotInput) {
  transitionPlan(id: $id, to: $to, constraints: $c) { id status constraintsRef } }"""
PLAN_CONSTRAINTS = "query($id: ID!) { plan(id: $id) { status constraints { id kbVersionId } } }"
CREATE_THREAD = """mutation($input: CreateConversationThreadInput!) {
  createConversationThread(input: $input) { created thread { id status } } }"""
APPEND_EVENTS = """mutation($events: [AppendConversationEventInput!]!) {
  appendConversationEvents(events: $events) { appended duplicates
    results { event { id sequence mediaUris } } } }"""
QUEUE = "query { threadsNeedingSummary(first: 50) { id needsSummaryReason } }"
SUMMARIZE = """mutation($t: ID!) { summarizeThread(threadId: $t) {
  summary { id version method summaryShort summaryLongUri eventsCovered }
  thread { needsSummary summaryVersion } } }"""
READ_THREAD = """query($id: ID!) { conversationThread(id: $id) {
  summaryShort openQuestions summaryVersion needsSummary eventCount } }"""
RECORD_EVENT = """mutation($input: RecordEngagementEventInput!) {
  recordEngagementEvent(input: $input) { deduplicated event { id eventKind result failureReason
    variant { id } publishRun { id } asset { id } thread { id } } } }"""
EPISODE = "id status toolCallLogUri toolCallLogSha256 closedAt"
START_EPISODE = f"mutation($i: StartEpisodeInput!) {{ startEpisode(input: $i) {{ {EPISODE} }} }}"
LINK_EPISODE = """mutation($id: ID!, $r: [EpisodeLinkInput!], $w: [EpisodeLinkInput!]) {
  linkEpisodeRecords(id: $id, reads: $r, writes: $w) { id readPlanNodes { id }
    readThreads { id } wroteAssets { id } wroteEngagement { id } } }"""
APPEND_CALLS = "mutation($id: ID!, $e: [JSON!]!) { appendToolCalls(id: $id, entries: $e) { id } }"
CLOSE_EPISODE = f"""mutation($id: ID!, $i: CloseEpisodeInput!) {{
  closeEpisode(id: $id, input: $i) {{ {EPISODE} }} }}"""
REPLAY = """query($id: ID!) { replayEpisode(id: $id) {
  episode { id status } inputRefs
  reads { label role record { __typename ... on PlanNode { id } ... on ConversationThread { id } } }
  writes { label role record { __typename ... on Asset { id } ... on EngagementEvent { id } } }
  snapshots { snapshot { id kbVersionId } plan { id } viaRecordIds inForceAtStart
    constraints { id } }
  log { uri sha256 toolCalls url } } }"""
LOG_URL = "query($id: ID!) { episodeToolCallLogUrl(id: $id) }"
CREATE_LESSON = """mutation($i: CreateLessonInput!) { createLesson(input: $i) {
  id evidenceEpisodes { id } } }"""
UPSTREAM = """query($id: ID!) { upstream(id: $id) { startId startLabel variants { id }
  assets { id } blueprints { id } ancestors { id } plans { id } snapshots { id }
  constraints { id } prompts { id } approvals { id status reviewerUserId } } }"""
DOWNSTREAM = """query($id: ID!) { downstream(id: $id) { startId nodes { id } assets { id }
  variants { id } prompts { id } approvals { id } packages { id } runs { id status }
  evidence { id sha256 } } }"""
TRACE = """query($id: ID!) { trace(variantId: $id) { variant { id status } asset { id }
  blueprint { id } ancestors { id } plan { id } snapshot { id kbVersionId }
  constraints { id kind version } prompts { id }
  approvals { id status reviewerUserId } packages { id status }
  runs { run { id status } evidence { id sha256 uri } } } }"""

# The get query for every id the flow creates (name of the id -> query).
GET_QUERIES = {
    "plan": "plan",
    "objective": "planNode",
    "campaign": "planNode",
    "blueprint": "planNode",
    "post_intent": "planNode",
    "snapshot": "constraintsSnapshot",
    "kb_document": "constraintDocument",
    "brandkit_version": "constraintVersion",
    "knowledge_base_version": "constraintVersion",
    "autonomy_policies_version": "constraintVersion",
    "provider_config_version": "constraintVersion",
    "blueprint_set_version": "constraintVersion",
    "asset": "asset",
    "variant": "assetVariant",
    "prompt": "promptArtifact",
    "approval": "approvalRecord",
    "package": "publishPackage",
    "run": "publishRun",
    "evidence": "evidenceArtifact",
    "thread": "conversationThread",
    "first_event": "conversationEvent",
    "summary": "threadSummary",
    "published_event": "engagementEvent",
    "failed_reply": "engagementEvent",
    "episode": "agentEpisode",
    "lesson": "lesson",
}
# Special queries that take one of the flow's ids: (document, name of the id).
SPECIAL_QUERIES = [
    (UPSTREAM, "variant"),
    (UPSTREAM, "asset"),
    (UPSTREAM, "package"),
    (DOWNSTREAM, "plan"),
    (DOWNSTREAM, "blueprint"),
    (TRACE, "variant"),
    (REPLAY, "episode"),
    ("query($id: ID!) { constraintsInForce(planId: $id) { frozen } }", "plan"),
    (LOG_URL, "episode"),
    ("query($id: ID!) { episodeTree(id: $id) { episode { id } } }", "episode"),
    ("query($id: ID!) { threadEvents(threadId: $id) { id } }", "thread"),
    ("query($id: ID!) { conversationEventText(id: $id) }", "first_event"),
]
LIST_QUERIES = [
    "plans", "planNodes", "constraintsSnapshots", "constraintDocuments", "constraintVersions",
    "knowledgeFacts", "assets", "assetVariants", "promptArtifacts",
    "approvalRecords", "publishPackages", "publishRuns", "evidenceArtifacts",
    "conversationThreads", "conversationEvents", "threadSummaries", "engagementEvents",
    "agentEpisodes", "lessons",
]  # fmt: skip
# Approval freezes the current version of each constraint document; the notes go with them.
CONSTRAINTS = {"notes": "Feb launch rules"}
PLAN_NODES = [
    ("objective", "OBJECTIVE", "Book 20 tankless estimates in February"),
    ("campaign", "CAMPAIGN", "Tankless water heater winter push"),
    ("blueprint", "BLUEPRINT_INSTANCE", "IG Reel: Hook → Value → CTA"),
    ("post_intent", "POST_INTENT", "Reel: cold showers are optional"),
]
PLAN_EDGES = [
    ("campaign", "objective", "DEPENDS_ON"),
    ("blueprint", "campaign", "DEPENDS_ON"),
    ("blueprint", "post_intent", "PRODUCES"),
]
# The comment thread under the published reel: (direction, event type, text).
COMMENTS = [
    ("INBOUND", "COMMENT", "Hi, I'm Dana. How much does a tankless water heater install cost?"),
    ("OUTBOUND", "REPLY", "Great question! We do a free in-home estimate for every install."),
    ("INBOUND", "COMMENT", "Nice video, thanks!"),
    ("OUTBOUND", "REPLY", "Could you share your address so we can book the estimate?"),
    ("INBOUND", "COMMENT", "Here is a photo of my old heater, it's leaking."),
    ("OUTBOUND", "REPLY", "Thanks for the photo. When would you like the install done?"),
    ("INBOUND", "COMMENT", "Before the end of next month if possible."),
    ("OUTBOUND", "REPLY", "Perfect. Please share your address and we will confirm a time."),
]
FIRST_COMMENT_AT = datetime(2026, 2, 3, 15, 0, tzinfo=UTC)


def comment_events(thread_id: str, photo: bytes) -> list[dict[str, Any]]:
    """The comments, 20 minutes apart (no hot-thread burst), the fifth one with a photo."""
    events = []
    for n, (direction, kind, text) in enumerate(COMMENTS):
        event: dict[str, Any] = {
            "threadId": thread_id,
            "direction": direction,
            "eventType": kind,
            "externalRef": f"ig:comment:{n}",
            "text": text,
            "occurredAt": (FIRST_COMMENT_AT + timedelta(minutes=20 * n)).isoformat(),
        }
        if n == 4:
            event["media"] = [{"contentBase64": b64(photo), "contentType": "image/jpeg"}]
        events.append(event)
    return events


def get_document(query: str) -> str:
    return f"query($id: ID!) {{ {query}(id: $id) {{ id }} }}"


def list_document(query: str) -> str:
    return f"query($ids: [ID!]) {{ {query}(where: {{ids: $ids}}) {{ totalCount }} }}"


def not_found_answer(body: dict[str, Any], record_id: str) -> tuple[str, str]:
    """The error code and message of a refused read, with the id asked for blanked out."""
    assert body.get("errors"), f"expected an error, got {body}"
    error = body["errors"][0]
    return str(error["extensions"]["code"]), str(error["message"]).replace(record_id, "<id>")


def random_id() -> str:
    return str(uuid.uuid4())


def s3_uris(session: Any, client_id: str) -> list[tuple[str, str, str]]:
    """(label, property, uri) of every *_uri / *_uris property of the client's nodes."""
    rows = session.run(
        "MATCH (n {client_id: $c}) UNWIND keys(n) AS k "
        "WITH n, k WHERE k = 'uri' OR k ENDS WITH '_uri' OR k ENDS WITH '_uris' "
        "RETURN labels(n)[0] AS label, k AS key, n[k] AS value",
        c=client_id,
    )
    found = []
    for row in rows:
        values = row["value"] if isinstance(row["value"], list) else [row["value"]]
        found += [(row["label"], row["key"], str(v)) for v in values if v is not None]
    return found


def stored_sha256(settings: Settings, caller: Caller, uri: str) -> str:
    data = asyncio.run(store_for(settings).get(principal_of(caller), uri))
    return hashlib.sha256(data).hexdigest()


def url_key(url: str) -> str:
    """The object key a presigned (path-style) URL points at, without the bucket."""
    path = urlparse(url).path.lstrip("/")
    return path.split("/", 1)[1]


def object_keys(settings: Settings, client_id: str) -> list[str]:
    """Every object key in the bucket under client/{client_id}/, read straight from S3."""
    store = store_for(settings)
    prefix = f"client/{client_id}/"
    objects = store.client.list_objects(settings.s3_bucket, prefix=prefix, recursive=True)
    return sorted(str(o.object_name) for o in objects)
