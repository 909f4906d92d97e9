"""The creates that take an idempotencyKey, each as a document and variables ready to send
(after setting up what it needs), and the client state a retry must leave unchanged: shared by
the idempotency tests (test_idempotency.py, test_idempotency_retries.py)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from app.model.enums import Role
from app.settings import Settings
from tests.integration.asset_helpers import b64, create_asset, create_variant
from tests.integration.client_helpers import client_state, colleague
from tests.integration.conftest import Caller
from tests.integration.workspace_helpers import workspace_with_a_file

__all__ = ["CASES", "REPEATS_SAVE_NOTHING", "case_caller", "client_state"]

Prepared = tuple[str, dict[str, Any]]
PLAN = {"name": "Retry week", "createdBy": "AGENT", "targetPlatforms": ["IG"]}
LESSON = {
    "scope": "CLIENT",
    "lessonType": "WHAT_WORKED",
    "statement": "Short hooks win",
    "confidence": 0.6,
    "decayHalfLifeDays": 30,
}
REMEMBER = """mutation($i: RememberInput!, $k: String) {
  remember(input: $i, idempotencyKey: $k) { id version key text createdAt } }"""
COUNT_RECORDS = "MATCH (r:MemoryRecord {client_id: $c}) RETURN count(r) AS n, sum(r.version) AS v"


def keyed_mutation(field: str, args: str, call: str, selection: str) -> str:
    """A mutation document taking $k as the idempotency key."""
    return (
        f"mutation({args}, $k: String) {{ {field}({call}, idempotencyKey: $k) {{ {selection} }} }}"
    )


def keyed_input(field: str, input_type: str, selection: str) -> str:
    return keyed_mutation(field, f"$i: {input_type}!", "input: $i", selection)


def first_field(caller: Caller, document: str, variables: dict[str, Any]) -> Any:
    return next(iter(caller.data(document, variables).values()))


def _plan(c: Caller) -> str:
    return str(
        first_field(c, keyed_input("createPlan", "CreatePlanInput", "id"), {"i": PLAN})["id"]
    )


def _thread(c: Caller) -> str:
    thread = {"platform": "INSTAGRAM", "threadType": "DM", "externalThreadRef": uuid.uuid4().hex}
    doc = """mutation($i: CreateConversationThreadInput!) {
      createConversationThread(input: $i) { thread { id } } }"""
    thread_id = c.data(doc, {"i": thread})["createConversationThread"]["thread"]["id"]
    event = """mutation($i: AppendConversationEventInput!) {
      appendConversationEvent(input: $i) { event { id } } }"""
    said = {"direction": "INBOUND", "eventType": "DM_MESSAGE", "externalRef": "m-1"}
    text = "Hi, how much is a tankless heater install?"
    c.data(event, {"i": said | {"threadId": thread_id, "text": text}})
    return str(thread_id)


def _episode(c: Caller) -> str:
    doc = keyed_input("startEpisode", "StartEpisodeInput", "id")
    return str(first_field(c, doc, {"i": {"taskClass": "t", "trigger": "PLANNER_TICK"}})["id"])


def _session(c: Caller) -> str:
    doc = keyed_input("startSession", "StartSessionInput", "created session { id }")
    return str(first_field(c, doc, {"i": {"agent": "tester"}})["session"]["id"])


def _record(c: Caller) -> str:
    return str(first_field(c, REMEMBER, {"i": {"kind": "SEMANTIC", "text": "a note"}})["id"])


def _lesson(c: Caller) -> str:
    return str(
        first_field(c, keyed_input("createLesson", "CreateLessonInput", "id"), {"i": LESSON})["id"]
    )


def _variant(c: Caller) -> str:
    frame = b64(uuid.uuid4().bytes)  # unique content: variants are deduplicated by checksum
    return str(create_variant(c, create_asset(c)["id"], contentBase64=frame)["id"])


def _publishing(c: Caller) -> str:
    """A package being published."""
    package = {"planId": _plan(c), "variantIds": [_variant(c)], "targetPlatforms": ["IG"]}
    made = first_field(
        c, keyed_input("createPublishPackage", "CreatePublishPackageInput", "id"), {"i": package}
    )
    move = "mutation($id: ID!) { transitionPublishPackage(id: $id, to: PUBLISHING) { id } }"
    c.data(move, {"id": made["id"]})
    return str(made["id"])


def _run(c: Caller) -> str:
    doc = keyed_input("startPublishRun", "StartPublishRunInput", "id")
    return str(first_field(c, doc, {"i": {"packageId": _publishing(c), "platform": "IG"}})["id"])


def _relationship(c: Caller) -> None:
    subject = 'mutation { upsertSubject(input: {externalRef: "ada"}) { id } }'
    c.data(subject)
    rel = 'mutation { setRelationship(input: {subject: "ada", type: "friend"}) { type } }'
    c.data(rel)


CASES: dict[str, Callable[[Caller], Prepared]] = {
    "createPlan": lambda c: (keyed_input("createPlan", "CreatePlanInput", "id name"), {"i": PLAN}),
    "createPlanNode": lambda c: (
        keyed_input("createPlanNode", "CreatePlanNodeInput", "id title"),
        {"i": {"planId": _plan(c), "nodeType": "BLUEPRINT_INSTANCE", "title": "Reel"}},
    ),
    "createPlanGraph": lambda c: (
        keyed_input("createPlanGraph", "CreatePlanGraphInput", "plan { id } keys { key nodeId }"),
        {
            "i": {
                "plan": PLAN,
                "nodes": [
                    {"key": "goal", "nodeType": "OBJECTIVE", "title": "Leads"},
                    {"key": "reel", "nodeType": "BLUEPRINT_INSTANCE", "title": "Reel"},
                ],
                "edges": [{"fromKey": "reel", "toKey": "goal", "edgeType": "DEPENDS_ON"}],
            }
        },
    ),
    "createAsset": lambda c: (
        keyed_input("createAsset", "CreateAssetInput", "id title"),
        {"i": {"assetType": "REEL", "title": "Spring reel", "createdBy": "AGENT"}},
    ),
    "createPromptArtifact": lambda c: (
        keyed_input("createPromptArtifact", "CreatePromptArtifactInput", "id promptSha256"),
        {
            "i": {
                "taskClass": "VIDEO_GEN",
                "provider": "acme",
                "model": "reel-1",
                "promptText": "Write the reel",
                "outputRefs": {"assetIds": [create_asset(c)["id"]]},
            }
        },
    ),
    "createApprovalRecord": lambda c: (
        keyed_input("createApprovalRecord", "CreateApprovalRecordInput", "id status"),
        {"i": {"assetId": create_asset(c)["id"], "requiredByPolicy": False}},
    ),
    "createPublishPackage": lambda c: (
        keyed_input("createPublishPackage", "CreatePublishPackageInput", "id status"),
        {"i": {"planId": _plan(c), "variantIds": [_variant(c)], "targetPlatforms": ["IG"]}},
    ),
    "startPublishRun": lambda c: (
        keyed_input("startPublishRun", "StartPublishRunInput", "id status"),
        {"i": {"packageId": _publishing(c), "platform": "IG"}},
    ),
    "addPublishEvidence": lambda c: (
        keyed_input("addPublishEvidence", "AddPublishEvidenceInput", "id sha256"),
        {"i": {"runId": _run(c), "kind": "LOG", "contentBase64": b64(b"posted ok")}},
    ),
    "createLesson": lambda c: (
        keyed_input("createLesson", "CreateLessonInput", "id"),
        {"i": LESSON},
    ),
    "supersedeLesson": lambda c: (
        keyed_mutation(
            "supersedeLesson",
            "$old: ID!, $new: CreateLessonInput!",
            "oldId: $old, newLesson: $new",
            "id",
        ),
        {"old": _lesson(c), "new": LESSON | {"statement": "Long hooks win"}},
    ),
    "linkRecords": lambda c: (
        keyed_mutation(
            "linkRecords", "$a: ID!, $b: ID!", "fromId: $a, toId: $b, relation: SUPPORTS", "linkId"
        ),
        {"a": _lesson(c), "b": _lesson(c)},
    ),
    "createConstraintDocument": lambda c: (
        keyed_input("createConstraintDocument", "CreateConstraintDocumentInput", "id kind"),
        {"i": {"kind": "BRANDKIT", "title": "Brand", "content": {"name": "Acme"}, "reason": "v1"}},
    ),
    "generateClientSnapshot": lambda c: (
        keyed_mutation(
            "generateClientSnapshot", "$f: DateTime!, $t: DateTime!", "from: $f, to: $t", "id"
        ),
        {"f": "2026-01-01T00:00:00Z", "t": "2026-02-01T00:00:00Z"},
    ),
    "writeThreadSummary": lambda c: (
        keyed_mutation(
            "writeThreadSummary",
            "$t: ID!",
            'threadId: $t, summaryShort: "asked a price"',
            "summary { id version }",
        ),
        {"t": _thread(c)},
    ),
    "summarizeThread": lambda c: (
        keyed_mutation("summarizeThread", "$t: ID!", "threadId: $t", "summary { id version }"),
        {"t": _thread(c)},
    ),
    "startEpisode": lambda c: (
        keyed_input("startEpisode", "StartEpisodeInput", "id agentName"),
        {"i": {"taskClass": "t", "trigger": "PLANNER_TICK"}},
    ),
    "appendToolCalls": lambda c: (
        keyed_mutation(
            "appendToolCalls",
            "$id: ID!",
            'id: $id, entries: [{tool: "search"}]',
            "id toolCallCount",
        ),
        {"id": _episode(c)},
    ),
    "recordCycle": lambda c: (
        keyed_input("recordCycle", "RecordCycleInput", "id sequence"),
        {"i": {"thoughts": "look around"}},
    ),
    "saveAgentState": lambda c: (
        keyed_mutation("saveAgentState", "$s: JSON!", "state: $s", "name stateVersion"),
        {"s": {"step": 1}},
    ),
    "saveAgentSessionState": lambda c: (
        keyed_mutation(
            "saveAgentSessionState",
            "$sid: ID!, $s: JSON!",
            "sessionId: $sid, state: $s",
            "id version state",
        ),
        {"sid": _session(c), "s": {"step": 1}},
    ),
    "learnFromFeedback": lambda c: (
        keyed_input("learnFromFeedback", "FeedbackInput", "event { id } performance { total }"),
        {"i": {"taskType": "captions", "success": True}},
    ),
    "touchRelationship": lambda c: (
        _relationship(c),  # type: ignore[func-returns-value]
        keyed_input("touchRelationship", "TouchInput", "sessions interactions"),
        {"i": {"subject": "ada", "interactions": 2}},
    )[1:],
    "startSession": lambda c: (
        keyed_input("startSession", "StartSessionInput", "created session { id }"),
        {"i": {"agent": "tester"}},
    ),
    "putSessionEntry": lambda c: (
        keyed_input("putSessionEntry", "PutSessionEntryInput", "id createdAt"),
        {"i": {"sessionId": _session(c), "text": "hello"}},
    ),
    "attachSessionTranscript": lambda c: (
        keyed_input("attachSessionTranscript", "AttachSessionTranscriptInput", "id sha256"),
        {"i": {"sessionId": _session(c), "text": "the whole call"}},
    ),
    "remember": lambda c: (REMEMBER, {"i": {"kind": "SEMANTIC", "key": "name", "text": "Ada"}}),
    "putSemanticDocument": lambda c: (
        keyed_mutation(
            "putSemanticDocument", "$d: JSON!", 'objectId: "o-1", document: $d', "id version"
        ),
        {"d": {"title": "Brand voice"}},
    ),
    "putProcedure": lambda c: (
        keyed_input("putProcedure", "ProcedureInput", "id version"),
        {"i": {"agent": "tester", "name": "greet", "procedureType": "TEMPLATE", "text": "Hi"}},
    ),
    "attachMemoryArtifact": lambda c: (
        keyed_mutation(
            "attachMemoryArtifact",
            "$r: ID!",
            'recordId: $r, kind: "notes", contentBase64: "aGk="',
            "id sha256",
        ),
        {"r": _record(c)},
    ),
    "createPersona": lambda c: (
        keyed_input("createPersona", "CreatePersonaInput", "id name currentVersion"),
        {"i": {"name": "tester", "systemPrompt": "You are the tester.", "traits": {"calm": True}}},
    ),
    "setAgentConfig": lambda c: (
        keyed_input("setAgentConfig", "AgentConfigInput", "id version directives"),
        {"i": {"reason": "tuning", "directives": ["Be brief."], "configOverrides": {"t": 1}}},
    ),
    "createWorkspace": lambda c: (
        keyed_input("createWorkspace", "CreateWorkspaceInput", "id name"),
        {"i": {"name": f"ws-{uuid.uuid4().hex[:8]}"}},
    ),
    "snapshotWorkspace": lambda c: (
        keyed_mutation("snapshotWorkspace", "$w: ID!", "workspaceId: $w", "id manifestSha256"),
        {"w": workspace_with_a_file(c)},
    ),
}


# The creates only a reviewer (or admin) may make; the other cases run as the agent key.
REVIEWER_CASES = frozenset({"createConstraintDocument"})
# Writes that save nothing when sent again unchanged, with or without a key (an edit equal to
# the current version): their key proves nothing more than a repeat does.
REPEATS_SAVE_NOTHING = frozenset({"setAgentConfig"})


def case_caller(name: str, agent: Caller, settings: Settings, session: Any) -> Caller:
    """Who sends case `name`: `agent`, or a reviewer key of its client where the case needs."""
    if name in REVIEWER_CASES:
        return colleague(settings, session, agent, Role.REVIEWER, "tester")
    return agent
