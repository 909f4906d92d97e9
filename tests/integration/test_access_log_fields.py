"""The access log's seed 004 fields over real HTTP and Neo4j: session id, request id, sanitised
request data, error message and client address on each entry, filters by request and session,
and the retention purge of the memory sweeper (one client's entries only)."""

from __future__ import annotations

import json
import uuid
from typing import Any

from app.domain.kernel.request_facts import MAX_REQUEST_DATA, REDACTED
from app.model.enums import Role
from app.settings import Settings
from tests.integration.conftest import Caller
from tests.integration.memory_helpers import RECALL_ID, REMEMBER, error_of, team

FIELDS = """id operation targetId outcome sessionId requestId requestData errorMessage
  clientAddress createdAt"""
LOG = f"""query($where: AccessLogWhere) {{ accessLog(where: $where, first: 100) {{
  totalCount nodes {{ {FIELDS} }} }} }}"""
SWEEP = "mutation { sweepExpiredMemories { accessLogPurged error } }"
BACKDATE = (
    """MATCH (e:AccessLogEntry {id: $id}) SET e.created_at = datetime() - duration({days: $days})"""
)
EXISTS = "MATCH (e:AccessLogEntry {id: $id}) RETURN count(e) AS n"
MISSING = "00000000-0000-4000-8000-000000000000"


def entries(caller: Caller, **where: Any) -> list[dict[str, Any]]:
    return list(caller.data(LOG, {"where": where})["accessLog"]["nodes"])


def test_entries_carry_the_requests_facts(settings: Settings, api_url: str) -> None:
    callers = team(settings, api_url, Role.AGENT, Role.ADMIN)
    agent, admin = callers[Role.AGENT], callers[Role.ADMIN]
    wrote, read = f"req-{uuid.uuid4().hex}", f"req-{uuid.uuid4().hex}"
    content = {"apiToken": "tok-123", "body": "b" * 3_000, "tags": list(range(40))}
    written = {
        "kind": "SEMANTIC",
        "namespace": {"agent": "agent-bot", "sessionId": "s-1"},
        "text": "the boiler code is 4711",
        "content": content,
    }
    body = agent.gql(REMEMBER, {"input": written}, **{"X-Request-Id": wrote})
    record = body["data"]["remember"]
    missing = agent.gql(
        RECALL_ID, {"id": MISSING}, **{"X-Request-Id": read, "X-Session-Id": "call-7"}
    )
    assert error_of(missing)["code"] == "NOT_FOUND"

    [create] = entries(admin, requestId=wrote)
    assert (create["operation"], create["targetId"], create["outcome"]) == (
        "create",
        record["id"],
        "OK",
    )
    assert (create["sessionId"], create["clientAddress"], create["errorMessage"]) == (
        "s-1",
        "127.0.0.1",
        None,
    )
    data = create["requestData"]
    assert len(json.dumps(data, ensure_ascii=False)) <= MAX_REQUEST_DATA
    shown = data["variables"]["input"]
    assert shown["content"]["apiToken"] == REDACTED  # a secret, by its name
    assert shown["content"]["body"].startswith("b" * 16) and shown["content"]["body"].endswith(")")
    assert len(shown["content"]["body"]) < 200 and len(shown["content"]["tags"]) < 40
    assert shown["text"] == written["text"] and shown["namespace"] == written["namespace"]

    [refused] = entries(admin, sessionId="call-7")
    assert (refused["operation"], refused["outcome"], refused["requestId"]) == (
        "read",
        "NOT_FOUND",
        read,
    )
    assert refused["errorMessage"].startswith("NOT_FOUND: ") and MISSING in refused["errorMessage"]
    assert refused["requestData"] == {"operationName": None, "variables": {"id": MISSING}}
    assert entries(admin, requestId="req-none") == []


def test_the_sweeper_deletes_entries_past_their_retention(
    settings: Settings, api_url: str, bob: Caller, neo4j_session: Any
) -> None:
    assert settings.access_log_retention_days > 0  # the suite runs with a retention
    days = settings.access_log_retention_days
    callers = team(settings, api_url, Role.AGENT, Role.ADMIN)
    agent, admin = callers[Role.AGENT], callers[Role.ADMIN]
    for n in range(3):
        agent.gql(RECALL_ID, {"id": MISSING}, **{"X-Request-Id": f"old-{n}"})
    bob.gql(RECALL_ID, {"id": MISSING})
    old, young, kept = (entries(admin, requestId=f"old-{n}")[0]["id"] for n in range(3))
    theirs = neo4j_session.run(
        "MATCH (e:AccessLogEntry {client_id: $c}) RETURN e.id AS id", c=bob.client_id
    ).single()["id"]
    for entry, age in ((old, days + 30), (young, days - 30), (theirs, days + 30)):
        neo4j_session.run(BACKDATE, id=entry, days=int(age))

    swept = admin.data(SWEEP)["sweepExpiredMemories"]
    assert swept == {"accessLogPurged": 1, "error": None}
    present = {e: neo4j_session.run(EXISTS, id=e).single()["n"] for e in (old, young, kept)}
    assert present == {old: 0, young: 1, kept: 1}
    assert neo4j_session.run(EXISTS, id=theirs).single()["n"] == 1  # another client's: kept
