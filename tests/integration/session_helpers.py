"""GraphQL documents and small helpers for the working-memory session tests."""

from __future__ import annotations

from typing import Any

from tests.integration.conftest import Caller

SESSION = """id agent subject status endedAt entryCount summaryRecordId externalRef metadata
  timelines lastEntryAt createdAt"""
ENTRY = """id kind sessionId timeline namespace text content tags priority sourceAgent active
  version subject agent createdAt"""
ARTIFACT = "id ownerId kind uri sha256 size contentType"
START = f"""mutation($input: StartSessionInput!) {{ startSession(input: $input) {{
  created session {{ {SESSION} }} }} }}"""
PUT = f"""mutation($input: PutSessionEntryInput!) {{ putSessionEntry(input: $input) {{
  {ENTRY} }} }}"""
DELETE_ENTRY = """mutation($id: ID!, $hard: Boolean! = false) {
  deleteSessionEntry(id: $id, hard: $hard) { sessionId count } }"""
DELETE_TIMELINE = """mutation($sid: ID!, $t: String!, $hard: Boolean! = false) {
  deleteSessionTimeline(sessionId: $sid, timeline: $t, hard: $hard) { sessionId count } }"""
END = f"""mutation($id: ID!, $summary: String) {{ endSession(id: $id, summary: $summary) {{
  entriesSummarized
  session {{ {SESSION} summary {{ id }} entries {{ id }} }}
  summary {{ {ENTRY} summarizes(first: 500) {{ id }} }} }} }}"""
ENTRIES = f"""query($sid: ID!, $t: String, $first: Int! = 50, $after: String) {{
  sessionEntries(sessionId: $sid, timeline: $t, first: $first, after: $after) {{
    totalCount pageInfo {{ hasNextPage endCursor }} edges {{ cursor node {{ {ENTRY} }} }} }} }}"""
REHYDRATE = f"""query($id: ID!, $mode: RehydrateMode!, $limit: Int! = 5000) {{
  rehydrateSession(id: $id, mode: $mode, limit: $limit) {{
    mode totalEntries truncated
    session {{ {SESSION} artifacts {{ id }} entries(first: 500) {{ id active }} }}
    summary {{ {ENTRY} }}
    entries {{ {ENTRY} }}
    timelines {{ name entries {{ id }} }} }} }}"""
ATTACH = f"""mutation($input: AttachSessionTranscriptInput!) {{
  attachSessionTranscript(input: $input) {{ {ARTIFACT} createdAt }} }}"""
READ_ARTIFACT = f"""query($id: ID!) {{ sessionArtifact(id: $id) {{
  contentBase64 text intact artifact {{ {ARTIFACT} }} }} }}"""
SEARCH_ENTRIES = """query($sid: ID!, $text: String!, $t: String, $k: Int! = 10) {
  searchSessionEntries(sessionId: $sid, text: $text, timeline: $t, mode: KEYWORD, k: $k) {
    score why entry { id text timeline sessionId } } }"""
SEARCH_EPISODIC = """query($text: String!, $agent: String, $subject: String) {
  searchEpisodicSummaries(text: $text, agent: $agent, subject: $subject, mode: KEYWORD) {
    sessionId agent subject entryCount timelineCount durationSeconds createdAt score why
    summary { id kind text sessionId } } }"""


def start(caller: Caller, **fields: Any) -> dict[str, Any]:
    payload = caller.data(START, {"input": {"agent": "brad", "subject": "alice", **fields}})
    return dict(payload["startSession"]["session"])


def put(caller: Caller, session_id: str, text: str | None, **fields: Any) -> dict[str, Any]:
    entry = {"sessionId": session_id, "text": text, **fields}
    return dict(caller.data(PUT, {"input": entry})["putSessionEntry"])


def entries(caller: Caller, session_id: str, **variables: Any) -> dict[str, Any]:
    found = caller.data(ENTRIES, {"sid": session_id, **variables})["sessionEntries"]
    return dict(found)


def entry_ids(caller: Caller, session_id: str, **variables: Any) -> list[str]:
    return [edge["node"]["id"] for edge in entries(caller, session_id, **variables)["edges"]]


def rehydrate(caller: Caller, session_id: str, mode: str, **variables: Any) -> dict[str, Any]:
    variables = {"id": session_id, "mode": mode, **variables}
    return dict(caller.data(REHYDRATE, variables)["rehydrateSession"])
