"""GraphQL documents and helpers for the memory record tests."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx

from app.cli.admin import create_key
from app.model.enums import Role
from app.settings import Settings
from tests.integration.conftest import Caller

RECORD = """id namespace subject agent sessionId path key kind text content contentUri
  contentSha256 contentSize tags priority sourceAgent expiresAt active deletedAt version
  procedureType createdAt updatedAt"""
REMEMBER = f"mutation($input: RememberInput!) {{ remember(input: $input) {{ {RECORD} }} }}"
RECALL_ID = f"query($id: ID!) {{ recallMemory(id: $id) {{ {RECORD} }} }}"
RECALL_KEY = f"""query($ns: NamespaceInput, $key: String!) {{
  recallMemory(namespace: $ns, key: $key) {{ {RECORD} }} }}"""
FORGET = """mutation($id: ID!, $hard: Boolean! = false) {
  forgetMemory(id: $id, hard: $hard) { id hard versionsDeleted objectsDeleted } }"""
HISTORY = f"""query($id: ID!, $inactive: Boolean! = false) {{
  memoryHistory(id: $id, includeInactive: $inactive) {{
    record {{ {RECORD} }}
    versions {{ id recordId version kind text content tags priority active validFrom createdAt }}
  }} }}"""
LIST = f"""query($where: MemoryWhere, $first: Int! = 20, $after: String,
  $inactive: Boolean! = false) {{
  memories(where: $where, first: $first, after: $after, includeInactive: $inactive) {{
    totalCount pageInfo {{ hasNextPage endCursor }} nodes {{ {RECORD} }} }} }}"""
ACCESS_LOG = """query($where: AccessLogWhere, $first: Int! = 200) {
  accessLog(where: $where, first: $first) {
    totalCount nodes { id operation principal keyId role targetType targetId outcome detail
      createdAt } } }"""
SWEEP = """mutation { sweepExpiredMemories { startedAt finishedAt scope purged error } }"""
SWEEPS = """{ memorySweeps { startedAt finishedAt scope purged error } }"""


def team(settings: Settings, api_url: str, *roles: Role) -> dict[Role, Caller]:
    """Callers of one fresh client, one per role (agent names '<role>-bot')."""
    client = f"test-{uuid.uuid4().hex[:12]}"
    callers = {}
    for role in roles:
        issued = asyncio.run(
            create_key(settings, client=client, role=role, agent_name=f"{role.value}-bot")
        )
        callers[role] = Caller(
            http=httpx.Client(base_url=api_url, timeout=30),
            key=issued.secret,
            client_id=issued.principal.client_id,
        )
    return callers


def remember(caller: Caller, **fields: Any) -> dict[str, Any]:
    fields.setdefault("kind", "SEMANTIC")
    return dict(caller.data(REMEMBER, {"input": fields})["remember"])


DERIVE = """mutation($from: ID!, $to: ID!) {
  linkRecords(fromId: $from, toId: $to, relation: DERIVED_FROM) { linkId } }"""


def derive(caller: Caller, record: dict[str, Any], *sources: dict[str, Any]) -> None:
    """Links `record` DERIVED_FROM each of `sources`."""
    for source in sources:
        caller.data(DERIVE, {"from": record["id"], "to": source["id"]})


def error_of(body: dict[str, Any]) -> dict[str, Any]:
    """The one error's extensions (code, field, ...) and message."""
    assert body.get("errors"), body
    error = body["errors"][0]
    return {"message": error["message"], **error.get("extensions", {})}


def listed(caller: Caller, where: dict[str, Any] | None = None, **variables: Any) -> Any:
    return caller.data(LIST, {"where": where, **variables})["memories"]


def log_entries(caller: Caller, **where: Any) -> list[dict[str, Any]]:
    return list(caller.data(ACCESS_LOG, {"where": where or None})["accessLog"]["nodes"])
