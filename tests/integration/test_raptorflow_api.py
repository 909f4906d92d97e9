"""Seed 002 (RaptorFlow) over HTTP GraphQL against the real Neo4j and S3: similar records by a
record's stored embedding, workspace memory, TTLs and caps of sessions, entries and threads with
the sweeper purging and counting, and getContext in the seed's shape; isolation throughout.

The expiry tests serve their own API with short default TTLs and a background sweep that waits
an hour; they sweep on request. Another API process of the shared database may sweep the same
records first, so counts are read from the client's access log (written by whichever process
purged them), and what is gone is read from the graph and from S3."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from app.artifacts.store import make_client
from app.model.enums import Role
from app.settings import Settings
from tests.integration.asset_helpers import MISSING_ID, create_plan, error_code
from tests.integration.conftest import Caller, serve_in_thread
from tests.integration.constraint_helpers import CONTENT
from tests.integration.memory_helpers import log_entries, remember, team
from tests.integration.search_helpers import wait_indexed
from tests.integration.session_helpers import entry_ids, put, start
from tests.integration.test_conversations_api import EVENTS, append, create_thread

HITS = "hits { recordId recordType vectorScore vectorRank why }"
SIMILAR = f"""query($id: ID!, $k: Int! = 10, $types: [SearchRecordType!],
  $filters: SearchFiltersInput) {{
  similar(recordId: $id, k: $k, recordTypes: $types, filters: $filters) {{ {HITS} }} }}"""
WS = "id key memoryType value metadata priority version"
PUT_WS = f"""mutation($input: PutWorkspaceMemoryInput!) {{
  putWorkspaceMemory(input: $input) {{ {WS} }} }}"""
WS_BY_KEY = f"query($key: String!) {{ workspaceMemoryByKey(key: $key) {{ {WS} }} }}"
WS_BY_ID = f"query($id: ID!) {{ workspaceMemory(id: $id) {{ {WS} }} }}"
WS_LIST = "{ workspaceMemories(first: 50) { totalCount nodes { key } } }"
DELETE_WS = f"mutation($key: String!) {{ deleteWorkspaceMemory(key: $key) {{ {WS} }} }}"
SWEEP = """mutation { sweepExpiredMemories { error expired {
  sessions sessionEntries threads threadEvents trimmedEvents } } }"""
SESSION_TTL = "id ttlSeconds entryTtlSeconds expiresAt createdAt lastEntryAt"
START_TTL = f"""mutation($input: StartSessionInput!) {{
  startSession(input: $input) {{ session {{ {SESSION_TTL} }} }} }}"""
PUT_TTL = """mutation($input: PutSessionEntryInput!) {
  putSessionEntry(input: $input) { id expiresAt createdAt } }"""
THREAD_TTL = "id ttlSeconds expiresAt maxEvents trimmedThrough eventCount"
GET_THREAD = f"query($id: ID!) {{ conversationThread(id: $id) {{ {THREAD_TTL} }} }}"
CAP = f"""mutation($t: ID!, $n: Int!) {{ capConversation(threadId: $t, keepLast: $n) {{
  trimmedEvents objectsRemoved thread {{ {THREAD_TTL} }} }} }}"""
SET_THREAD_TTL = f"""mutation($t: ID!, $s: Int!) {{
  setConversationTtl(threadId: $t, ttlSeconds: $s) {{ {THREAD_TTL} }} }}"""
SET_SESSION_TTL = f"""mutation($s: ID!, $ttl: Int!, $e: Int) {{
  setSessionTtl(sessionId: $s, ttlSeconds: $ttl, entryTtlSeconds: $e) {{ {SESSION_TTL} }} }}"""
LONG = "x" * 1_500  # above AGENTMEM_EVENT_INLINE_TEXT_MAX: stored in S3


def _similar(caller: Caller, record_id: str, **variables: Any) -> list[dict[str, Any]]:
    return list(caller.data(SIMILAR, {"id": record_id, **variables})["similar"]["hits"])


def test_similar_records_by_the_stored_embedding(alice: Caller, bob: Caller) -> None:
    ids = {
        text: remember(alice, key=f"k{n}", text=text, tags=[tag])["id"]
        for n, (text, tag) in enumerate(
            [
                ("Our cats purr softly on the sofa", "pets"),
                ("Kittens purr loudly when they are happy", "pets"),
                ("The stock market crashed on Monday", "finance"),
                ("Bond yields rose after the central bank met", "finance"),
            ]
        )
    }
    theirs = remember(bob, key="k", text="Kittens purr loudly when they are happy")["id"]
    voice = alice.data(
        PUT_WS, {"input": {"key": "v", "memoryType": "ICP", "value": {"who": "cat owners"}}}
    )["putWorkspaceMemory"]
    empty = create_thread(alice)["thread"]["id"]  # searchable by its summary, which it lacks
    wait_indexed(alice)
    wait_indexed(bob)
    cats = ids["Our cats purr softly on the sofa"]
    hits = _similar(alice, cats, k=3)
    found = [hit["recordId"] for hit in hits]
    assert found[0] == ids["Kittens purr loudly when they are happy"]
    assert cats not in found and theirs not in found and len(found) == 3
    assert hits[0]["vectorRank"] == 1 and hits[0]["vectorScore"] >= hits[1]["vectorScore"]
    finance = _similar(alice, cats, filters={"tags": ["finance"]})
    assert {h["recordId"] for h in finance} == {
        ids["The stock market crashed on Monday"],
        ids["Bond yields rose after the central bank met"],
    }
    typed = _similar(alice, cats, types=["WORKSPACE_MEMORY"])
    assert [h["recordId"] for h in typed] == [voice["id"]]
    # Another client's record is a record that does not exist; bad input names its field.
    other, missing = bob.gql(SIMILAR, {"id": cats}), bob.gql(SIMILAR, {"id": MISSING_ID})
    assert error_code(other) == error_code(missing) == "NOT_FOUND"
    assert (
        other["errors"][0]["message"].replace(cats, MISSING_ID) == (missing["errors"][0]["message"])
    )
    assert error_code(alice.gql(SIMILAR, {"id": "nope"})) == "VALIDATION"
    bad_k = alice.gql(SIMILAR, {"id": cats, "k": 0})
    assert bad_k["errors"][0]["extensions"]["field"] == "k"
    no_text = alice.gql(SIMILAR, {"id": empty})
    assert error_code(no_text) == "CONFLICT" and "no text" in no_text["errors"][0]["message"]


def test_workspace_memory_upserts_by_key_per_client(alice: Caller, bob: Caller) -> None:
    given = {"key": "brand", "memoryType": "BRAND_VOICE", "value": {"tone": "warm"}}
    first = alice.data(PUT_WS, {"input": given})["putWorkspaceMemory"]
    again = alice.data(PUT_WS, {"input": given})["putWorkspaceMemory"]
    assert first["version"] == again["version"] == 1 and again["id"] == first["id"]
    changed = alice.data(PUT_WS, {"input": given | {"value": {"tone": "bold"}, "priority": 8}})
    assert changed["putWorkspaceMemory"]["version"] == 2
    by_key = alice.data(WS_BY_KEY, {"key": "brand"})["workspaceMemoryByKey"]
    assert by_key["value"] == {"tone": "bold"} and by_key["priority"] == 8
    assert alice.data(WS_BY_ID, {"id": first["id"]})["workspaceMemory"]["key"] == "brand"
    assert alice.data(WS_LIST)["workspaceMemories"]["totalCount"] == 1
    # Bob's client has its own "brand" key; alice's is invisible to him.
    assert error_code(bob.gql(WS_BY_KEY, {"key": "brand"})) == "NOT_FOUND"
    theirs, nothing = bob.gql(WS_BY_ID, {"id": first["id"]}), bob.gql(WS_BY_ID, {"id": MISSING_ID})
    assert theirs.get("data") == nothing.get("data")
    assert [e["extensions"]["code"] for e in theirs.get("errors", [])] == [
        e["extensions"]["code"] for e in nothing.get("errors", [])
    ]
    assert bob.data(WS_LIST)["workspaceMemories"]["totalCount"] == 0
    assert error_code(bob.gql(DELETE_WS, {"key": "brand"})) == "NOT_FOUND"
    for bad, field in [({"value": "text"}, "value"), ({"priority": 11}, "priority")]:
        body = alice.gql(PUT_WS, {"input": given | bad})
        assert body["errors"][0]["extensions"]["field"] == field
    assert alice.data(DELETE_WS, {"key": "brand"})["deleteWorkspaceMemory"]["version"] == 2
    assert error_code(alice.gql(WS_BY_KEY, {"key": "brand"})) == "NOT_FOUND"


@pytest.fixture(scope="module")
def expiring_url(settings: Settings) -> Iterator[str]:
    short = settings.model_copy(
        update={
            "session_ttl_s": 2,
            "session_entry_ttl_s": 1,
            "conversation_ttl_s": 2,
            "conversation_max_events": 3,
            "memory_sweep_interval_s": 3_600.0,
            # A sweep on request plans its queries within the request's deadline: on a busy
            # shared machine the first plans take seconds.
            "dependency_timeout_s": 60.0,
        }
    )
    yield from serve_in_thread(short)


def _purged(admin: Caller, wanted: dict[str, int], timeout_s: float = 10.0) -> dict[str, int]:
    """The client's "expire" access log entries added up per detail, once they show `wanted`
    (the log is written in batches)."""
    deadline = time.monotonic() + timeout_s
    while True:
        totals: dict[str, int] = {}
        for entry in log_entries(admin, operations=["expire"]):
            count, detail = entry["detail"].split(" ", 1)
            totals[detail] = totals.get(detail, 0) + int(count)
        if all(totals.get(k, 0) >= v for k, v in wanted.items()) or time.monotonic() > deadline:
            return totals
        time.sleep(0.2)


def _count(neo4j_session: Any, query: str, **params: Any) -> int:
    return int(neo4j_session.run(query, **params).single()[0])


def test_session_and_entry_ttls_expire_and_the_sweeper_counts(
    settings: Settings, expiring_url: str, neo4j_session: Any
) -> None:
    callers = team(settings, expiring_url, Role.AGENT, Role.ADMIN)
    agent, admin = callers[Role.AGENT], callers[Role.ADMIN]
    brief = agent.data(START_TTL, {"input": {"agent": "agent-bot"}})["startSession"]["session"]
    assert (brief["ttlSeconds"], brief["entryTtlSeconds"]) == (2, 1)
    assert brief["expiresAt"] > brief["createdAt"]
    lasting = agent.data(
        START_TTL, {"input": {"agent": "agent-bot", "ttlSeconds": 0, "entryTtlSeconds": 0}}
    )["startSession"]["session"]
    assert (lasting["ttlSeconds"], lasting["entryTtlSeconds"], lasting["expiresAt"]) == (
        None,
        None,
        None,
    )
    kept = agent.data(PUT_TTL, {"input": {"sessionId": brief["id"], "text": "a", "ttlSeconds": 0}})
    assert kept["putSessionEntry"]["expiresAt"] is None
    fading = put(agent, brief["id"], "b")  # the session's entry TTL: 1 s
    slid = agent.data(
        "query($id: ID!) { memorySession(id: $id) { expiresAt } }", {"id": brief["id"]}
    )
    assert slid["memorySession"]["expiresAt"] > brief["expiresAt"]
    short = agent.data(
        PUT_TTL, {"input": {"sessionId": lasting["id"], "text": "c", "ttlSeconds": 1}}
    )["putSessionEntry"]
    stays = put(agent, lasting["id"], "d")
    bad = agent.gql(START_TTL, {"input": {"agent": "agent-bot", "ttlSeconds": -1}})
    assert bad["errors"][0]["extensions"]["field"] == "ttl_seconds"
    time.sleep(2.5)
    assert entry_ids(agent, lasting["id"]) == [stays["id"]]  # an expired entry is hidden at once
    assert admin.data(SWEEP)["sweepExpiredMemories"]["error"] is None
    gone = "MATCH (n) WHERE n.id IN $ids RETURN count(n)"
    ids = [brief["id"], kept["putSessionEntry"]["id"], fading["id"], short["id"]]
    assert _count(neo4j_session, gone, ids=ids) == 0
    assert _count(neo4j_session, gone, ids=[lasting["id"], stays["id"]]) == 2
    totals = _purged(admin, {"sessions purged": 1, "session entries purged": 1})
    assert totals.get("sessions purged") == 1 and totals.get("session entries purged") == 1
    assert totals.get("expired records purged") == 2  # fading and short, on their own TTL
    renewed = admin.data(SET_SESSION_TTL, {"s": lasting["id"], "ttl": 60, "e": 5})
    assert renewed["setSessionTtl"]["ttlSeconds"] == 60
    assert renewed["setSessionTtl"]["entryTtlSeconds"] == 5
    other = new_client_admin(settings, expiring_url)
    assert error_code(other.gql(SET_SESSION_TTL, {"s": lasting["id"], "ttl": 1})) == "NOT_FOUND"


def new_client_admin(settings: Settings, url: str) -> Caller:
    return team(settings, url, Role.ADMIN)[Role.ADMIN]


def test_thread_ttl_and_cap_purge_events_and_their_objects(
    settings: Settings, expiring_url: str, neo4j_session: Any
) -> None:
    callers = team(settings, expiring_url, Role.AGENT, Role.ADMIN)
    agent, admin = callers[Role.AGENT], callers[Role.ADMIN]
    s3 = make_client(settings)

    def stored(uri: str) -> bool:
        key = uri.removeprefix(f"s3://{settings.s3_bucket}/")
        return bool(list(s3.list_objects(settings.s3_bucket, prefix=key)))

    def removed(uri: str, timeout_s: float = 30.0) -> bool:
        """Whether the object goes: at once, or (when the purge's process could not remove
        it: S3 or the graph slow) once the orphan reconciliation has checked it."""
        deadline = time.monotonic() + timeout_s
        while stored(uri) and time.monotonic() < deadline:
            time.sleep(0.5)
        return not stored(uri)

    capped = create_thread(agent, ttlSeconds=0)["thread"]["id"]  # default cap 3, never expires
    brief = create_thread(agent, maxEvents=0)["thread"]["id"]  # default TTL 2 s, uncapped
    made = agent.data(GET_THREAD, {"id": brief})["conversationThread"]
    assert (made["ttlSeconds"], made["maxEvents"]) == (2, None) and made["expiresAt"]
    long_capped = append(agent, capped, "c1", LONG)["event"]["textUri"]
    for n in range(2, 6):
        append(agent, capped, f"c{n}", f"message {n}")
    long_brief = append(agent, brief, "b1", LONG)["event"]["textUri"]
    append(agent, brief, "b2", "bye", direction="OUTBOUND")
    slid = agent.data(GET_THREAD, {"id": brief})["conversationThread"]["expiresAt"]
    assert slid > made["expiresAt"] and stored(long_capped) and stored(long_brief)
    assert admin.data(SWEEP)["sweepExpiredMemories"]["error"] is None
    sequences = [
        e["sequence"] for e in agent.data(EVENTS, {"t": capped, "after": 0})["threadEvents"]
    ]
    assert sequences == [3, 4, 5] and removed(long_capped)
    now = agent.data(GET_THREAD, {"id": capped})["conversationThread"]
    assert (now["maxEvents"], now["trimmedThrough"], now["eventCount"]) == (3, 2, 5)
    # capConversation trims at once, in its own transaction, and counts.
    cut = agent.data(CAP, {"t": capped, "n": 1})["capConversation"]
    assert (cut["trimmedEvents"], cut["objectsRemoved"], cut["thread"]["trimmedThrough"]) == (
        2,
        0,
        4,
    )
    assert [
        e["sequence"] for e in agent.data(EVENTS, {"t": capped, "after": 0})["threadEvents"]
    ] == [5]
    uncapped = agent.data(CAP, {"t": capped, "n": 0})["capConversation"]
    assert uncapped["trimmedEvents"] == 0 and uncapped["thread"]["maxEvents"] is None
    bad = agent.gql(CAP, {"t": capped, "n": -1})
    assert bad["errors"][0]["extensions"]["field"] == "keep_last"
    outsider = team(settings, expiring_url, Role.AGENT)[Role.AGENT]
    assert error_code(outsider.gql(CAP, {"t": capped, "n": 1})) == "NOT_FOUND"
    assert error_code(outsider.gql(CAP, {"t": MISSING_ID, "n": 1})) == "NOT_FOUND"
    assert error_code(outsider.gql(SET_THREAD_TTL, {"t": capped, "s": 1})) == "NOT_FOUND"
    assert (
        agent.data(SET_THREAD_TTL, {"t": capped, "s": 1})["setConversationTtl"]["ttlSeconds"] == 1
    )
    time.sleep(2.5)
    assert admin.data(SWEEP)["sweepExpiredMemories"]["error"] is None
    count = "MATCH (n) WHERE n.id IN $ids OR n.thread_id IN $ids RETURN count(n)"
    assert _count(neo4j_session, count, ids=[capped, brief]) == 0
    assert removed(long_brief)
    totals = _purged(admin, {"threads purged": 2, "thread events purged": 3})
    assert totals.get("trimmed events purged") == 2  # the sweeper's; the cap's own are not logged
    assert totals.get("threads purged") == 2 and totals.get("thread events purged") == 3


CONTEXT = """query($input: ContextInput!) { getContext(input: $input) {
  tokensUsed omitted usedIds patterns { totalTasks }
  sessionEntries { record { id } }
  conversationHistory { recordId role speaker text at }
  workspace { brandVoice { key priority } icps { key } preferences { key }
              brandKit { id version content } }
  relevantContent { recordId recordType }
  relevantMemories { record { id } } } }"""
BRAND = CONTENT["BRANDKIT"]
BRANDKIT = """mutation($input: CreateConstraintDocumentInput!) {
  createConstraintDocument(input: $input) { currentVersionId } }"""


@pytest.mark.callers(role=Role.REVIEWER, agent_name="planner")
def test_get_context_has_the_seeds_shape(alice: Caller, bob: Caller) -> None:
    session = start(alice, agent="planner", subject=None)["id"]
    put(alice, session, "Plan a campaign for dentists", speaker="user-7")
    put(alice, session, "Sure, a three-week dentist campaign")
    thread = create_thread(alice)["thread"]["id"]
    append(alice, thread, "m1", "Do you do teeth whitening promos?")
    for key, kind, priority in [
        ("voice-main", "BRAND_VOICE", 9),
        ("voice-old", "BRAND_VOICE", 2),
        ("icp-clinics", "ICP", 5),
        ("icp-chains", "ICP", 7),
        ("pref-emoji", "PREFERENCE", 5),
        ("misc", "CUSTOM", 10),
    ]:
        value = {"note": f"{key} for dentist campaigns"}
        fields = {"key": key, "memoryType": kind, "value": value, "priority": priority}
        alice.data(PUT_WS, {"input": fields})
    kit = {"kind": "BRANDKIT", "title": "Brand", "reason": "first", "content": BRAND}
    version = alice.data(BRANDKIT, {"input": kit})["createConstraintDocument"]["currentVersionId"]
    plan = create_plan(alice)
    alice.data(
        "mutation($id: ID!) { updatePlan(id: $id, input: {summary: "
        '"Dentist campaign for February"}) { id } }',
        {"id": plan},
    )
    wait_indexed(alice)
    ask = {"taskType": "campaign_planning", "sessionId": session, "threadId": thread}
    ask |= {"text": "dentist campaign", "tokenBudget": 8000}
    found = alice.data(CONTEXT, {"input": ask})["getContext"]
    history = found["conversationHistory"]
    assert [m["text"] for m in history] == [
        "Plan a campaign for dentists",
        "Sure, a three-week dentist campaign",
        "Do you do teeth whitening promos?",
    ]
    assert [m["role"] for m in history] == ["user", "agent", "user"]
    assert history[0]["speaker"] == "user-7"
    workspace = found["workspace"]
    assert workspace["brandVoice"] == {"key": "voice-main", "priority": 9}
    assert [w["key"] for w in workspace["icps"]] == ["icp-chains", "icp-clinics"]
    assert [w["key"] for w in workspace["preferences"]] == ["pref-emoji"]
    assert workspace["brandKit"]["id"] == version
    assert workspace["brandKit"]["content"] == BRAND
    assert plan in [c["recordId"] for c in found["relevantContent"]]
    assert {c["recordType"] for c in found["relevantContent"]}.isdisjoint(
        {"MemoryRecord", "WorkspaceMemory"}
    )
    assert found["patterns"]["totalTasks"] == 0
    assert plan in found["usedIds"] and history[2]["recordId"] in found["usedIds"]
    quiet = alice.data(CONTEXT, {"input": ask | {"includeSemantic": False}})["getContext"]
    assert quiet["relevantContent"] == [] and quiet["relevantMemories"] == []
    tight = alice.data(CONTEXT, {"input": ask | {"tokenBudget": 60}})["getContext"]
    assert tight["omitted"] > 0 and tight["tokensUsed"] <= 60
    # Another client's thread is a thread that does not exist.
    other = {"taskType": "campaign_planning", "threadId": thread}
    missing = other | {"threadId": MISSING_ID}
    assert error_code(bob.gql(CONTEXT, {"input": other})) == "NOT_FOUND"
    assert error_code(bob.gql(CONTEXT, {"input": missing})) == "NOT_FOUND"
    assert bob.data(CONTEXT, {"input": {"taskType": "x"}})["getContext"]["workspace"] == {
        "brandVoice": None,
        "icps": [],
        "preferences": [],
        "brandKit": None,
    }
    invalid = bob.gql(CONTEXT, {"input": other | {"threadId": "nope"}})
    assert invalid["errors"][0]["extensions"]["field"] == "thread_id"
