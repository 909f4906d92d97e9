"""EngagementEvent repository (seed 000, 6.2): an action taken or observed and its outcome.

Each linked id (asset, variant, publish run, thread) is optional; one that the caller's client
does not own is answered NOT_FOUND, exactly like one that does not exist, and each linked record
gets a CONCERNS relationship. An event with an external_ref is recorded once per client: the
same external_ref again returns the stored event, unchanged, flagged `deduplicated`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from neo4j.exceptions import ConstraintError

from app.domain.kernel.errors import ValidationFailed
from app.domain.kernel.field_rules import check_text, decoded, enum_value, json_text
from app.domain.kernel.ids import check_id, new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import missing
from app.graph.change_feed import note_change
from app.graph.executor import GraphExecutor, Tx
from app.graph.values import plain
from app.model.enums import (
    ChangeAction,
    EngagementActor,
    EngagementKind,
    EngagementResult,
    Platform,
)

MAX_REF = 500
MAX_REASON = 200
JSON_FIELDS = ("payload",)
# (field, query parameter, what the NOT_FOUND message calls it)
LINKS = (
    ("linked_asset_id", "asset_id", "asset"),
    ("variant_id", "variant_id", "variant"),
    ("publish_run_id", "run_id", "publish run"),
    ("thread_id", "thread_id", "conversation thread"),
)
BY_EXTERNAL_REF = """
MATCH (e:EngagementEvent {client_id: $client_id, external_ref: $external_ref})
RETURN e {.*} AS event
"""
FIND_LINKS = """
OPTIONAL MATCH (e:EngagementEvent {client_id: $client_id, external_ref: $external_ref})
RETURN e {.*} AS existing,
  EXISTS { MATCH (:Asset {id: $asset_id, client_id: $client_id}) } AS asset_id,
  COLLECT { MATCH (v:AssetVariant {id: $variant_id, client_id: $client_id}) RETURN v.asset_id }
    AS variant_id,
  EXISTS { MATCH (:PublishRun {id: $run_id, client_id: $client_id}) } AS run_id,
  EXISTS { MATCH (:ConversationThread {id: $thread_id, client_id: $client_id}) } AS thread_id
"""
CREATE_EVENT = """
CREATE (e:EngagementEvent $props)
WITH e
CALL (e) {
  MATCH (a:Asset {id: $asset_id, client_id: $client_id}) CREATE (e)-[:CONCERNS]->(a) }
CALL (e) {
  MATCH (v:AssetVariant {id: $variant_id, client_id: $client_id}) CREATE (e)-[:CONCERNS]->(v) }
CALL (e) {
  MATCH (r:PublishRun {id: $run_id, client_id: $client_id}) CREATE (e)-[:CONCERNS]->(r) }
CALL (e) {
  MATCH (t:ConversationThread {id: $thread_id, client_id: $client_id})
  CREATE (e)-[:CONCERNS]->(t) }
RETURN e {.*} AS event
"""


@dataclass(frozen=True)
class EventWrite:
    event: dict[str, Any]
    deduplicated: bool


def check_new_event(fields: dict[str, Any]) -> dict[str, Any]:
    """The stored properties of a new event (without id, client and timestamps)."""
    result = enum_value(EngagementResult, fields.get("result"), field="result")
    check_text(fields, "external_ref", limit=MAX_REF)
    check_text(fields, "failure_reason", limit=MAX_REASON)
    reason = fields.get("failure_reason")
    reason = reason.strip() if isinstance(reason, str) and reason.strip() else None
    if result is EngagementResult.FAIL and reason is None:
        raise ValidationFailed("a failed event needs a failure_reason", field="failure_reason")
    if result is EngagementResult.SUCCESS and reason is not None:
        raise ValidationFailed(
            "failure_reason is only for fail or partial results", field="failure_reason"
        )
    stored: dict[str, Any] = {
        "platform": enum_value(Platform, fields.get("platform"), field="platform").value,
        "event_kind": enum_value(
            EngagementKind, fields.get("event_kind"), field="event_kind"
        ).value,
        "actor": enum_value(EngagementActor, fields.get("actor"), field="actor").value,
        "result": result.value,
        "failure_reason": reason,
        "external_ref": fields.get("external_ref") or None,
        "payload": json_text(fields.get("payload"), field="payload"),
    }
    for name, _, _ in LINKS:
        given = fields.get(name)
        stored[name] = None if given is None else check_id(str(given), field=name)
    return stored


async def record_event(
    graph: GraphExecutor, *, principal: Principal, fields: dict[str, Any]
) -> EventWrite:
    principal.require_writer()
    stored = check_new_event(fields)
    now = datetime.now(UTC)
    props = {key: value for key, value in stored.items() if value is not None} | {
        "id": new_id(),
        "client_id": principal.client_id,
        "created_at": now,
        "updated_at": now,
    }
    params = {"client_id": principal.client_id, "external_ref": stored["external_ref"]}
    params |= {param: stored[name] for name, param, _ in LINKS}

    async def work(tx: Tx) -> EventWrite:
        found = (await tx.run(FIND_LINKS, params))[0]
        if found["existing"] is not None:
            return EventWrite(decoded(plain(found["existing"]), JSON_FIELDS), deduplicated=True)
        check_links(stored, found)
        rows = await tx.run(CREATE_EVENT, params | {"props": props})
        note_change(principal.client_id, "EngagementEvent", props["id"], ChangeAction.CREATED)
        return EventWrite(decoded(plain(rows[0]["event"]), JSON_FIELDS), deduplicated=False)

    try:
        return await graph.in_transaction(work)
    except ConstraintError:
        # Another request recorded the same external_ref between our check and our write.
        again = await graph.read(BY_EXTERNAL_REF, params)
        if not again or stored["external_ref"] is None:
            raise
        return EventWrite(decoded(plain(again[0]["event"]), JSON_FIELDS), deduplicated=True)


def check_links(stored: dict[str, Any], found: dict[str, Any]) -> None:
    """NOT_FOUND for a linked id the client does not own; a variant must be of the asset."""
    for name, param, what in LINKS:
        if stored[name] is not None and not found[param]:
            raise missing(what, stored[name])
    asset, variant = stored["linked_asset_id"], stored["variant_id"]
    if asset is not None and variant is not None and found["variant_id"][0] != asset:
        raise ValidationFailed(
            f"variant {variant} is not a variant of asset {asset}", field="variant_id"
        )
