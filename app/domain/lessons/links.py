"""MemoryLinks (seed 000, 8.3): typed relationships between any two records of one client.

A link is a relationship whose type is a MemoryRelation upper-cased (SUPPORTS, CONTRADICTS,
CAUSED, DERIVED_FROM, VALIDATES, and seed 004's REPLY_TO, REFERENCE, FOLLOW_UP) with link_id,
client_id, author, created_at, note and metadata (a JSON object, stored as its text); one per
(source, target, type): the same link again is a CONFLICT naming the existing one. Both ends
are looked up by id within the caller's client among the model's record labels (one unique-index
seek per label), so an id of another client is NOT_FOUND like an id that does not exist.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from enum import StrEnum
from functools import cache, partial
from typing import Any

from app.domain.kernel.errors import Conflict, ValidationFailed
from app.domain.kernel.field_rules import MAX_TEXT, check_text, decoded, enum_value, json_text
from app.domain.kernel.ids import check_id, new_id
from app.domain.kernel.principal import Principal
from app.domain.kernel.records import missing
from app.graph.change_feed import Changed, note_all
from app.graph.cypher_files import api_params, named_query
from app.graph.executor import GraphExecutor, Tx
from app.graph.fragments import lock
from app.graph.identifiers import cypher_label, cypher_rel_type
from app.graph.values import plain
from app.model import MODEL
from app.model.enums import ChangeAction, MemoryRelation

NOT_RECORDS = frozenset({"Client", "ApiKey"})
RECORD_LABELS: tuple[str, ...] = tuple(c.__name__ for c in MODEL if c.__name__ not in NOT_RECORDS)
LINK_TYPES: tuple[str, ...] = tuple(relation.value.upper() for relation in MemoryRelation)
RECORDS = "|".join(cypher_label(label) for label in RECORD_LABELS)
LINKS = "|".join(cypher_rel_type(rel_type) for rel_type in LINK_TYPES)
# A disjunction of ten or more PascalCase labels in a query file: the record labels, refreshed
# from the model when the API runs the file (relationship types are upper case: never matched).
LABEL_LIST = re.compile(r"(?<=:)(?:`?[A-Z][a-z]\w*`?\|){9,}`?[A-Z][a-z]\w*`?")
TITLE = (
    "coalesce({v}.title, {v}.name, {v}.statement, {v}.summary_short, {v}.output_summary, "
    "{v}.summary, {v}.caption_text, {v}.text, {v}.event_kind, {v}.metric_type, {v}.kind)"
)


def ref(v: str) -> str:
    """A reference to any record: id, label, a human title and when it was created."""
    title = TITLE.format(v=v)
    return f"{{id: {v}.id, label: head(labels({v})), title: {title}, created_at: {v}.created_at}}"


def link_map(r: str, a: str, b: str) -> str:
    return (
        f"{{link_id: {r}.link_id, relation: type({r}), author: {r}.author, "
        f"created_at: {r}.created_at, note: {r}.note, metadata: {r}.metadata, "
        f"from: {ref(a)}, to: {ref(b)}}}"
    )


ENDPOINTS = f"""
OPTIONAL MATCH (a:{RECORDS} {{id: $from_id}}) WHERE a.client_id = $client_id
OPTIONAL MATCH (b:{RECORDS} {{id: $to_id}}) WHERE b.client_id = $client_id
{lock("a")}
RETURN a.id AS from_id, b.id AS to_id,
       COLLECT {{ MATCH (a)-[r]->(b) WHERE type(r) = $rel_type RETURN r.link_id }} AS existing
"""
CREATE_LINK = f"""
MATCH (a:{RECORDS} {{id: $from_id}}) WHERE a.client_id = $client_id
MATCH (b:{RECORDS} {{id: $to_id}}) WHERE b.client_id = $client_id
MERGE (a)-[r:$($rel_type)]->(b)
ON CREATE SET r = $props
RETURN {link_map("r", "a", "b")} AS link, labels(a) AS source_labels
"""
UNLINK = f"""
MATCH (a)-[r:{LINKS} {{link_id: $link_id}}]->(b)
WHERE r.client_id = $client_id AND a.client_id = $client_id AND b.client_id = $client_id
WITH r, {link_map("r", "a", "b")} AS link, labels(a) AS source_labels
DELETE r
RETURN link, source_labels
"""


class LinkDirection(StrEnum):
    OUT = "out"
    IN = "in"
    BOTH = "both"


def link_props(
    principal: Principal, *, note: str | None, now: datetime, metadata: str | None = None
) -> dict[str, Any]:
    """The properties of a new link (also used by supersedeLesson's CONTRADICTS link);
    `metadata` is JSON text (json_text)."""
    return {
        "link_id": new_id(),
        "client_id": principal.client_id,
        "author": principal.actor,
        "created_at": now,
        "note": note,
        "metadata": metadata,
    }


def rel_types(relations: list[Any] | None) -> list[str]:
    """Relationship types of the relations asked for; None or empty means all of them."""
    chosen = [enum_value(MemoryRelation, r, field="relations") for r in relations or []]
    return [r.value.upper() for r in chosen] or list(LINK_TYPES)


def check_labels(labels: list[str] | None) -> list[str] | None:
    if not labels:
        return None
    unknown = sorted(set(labels) - set(RECORD_LABELS))
    if unknown:
        allowed = ", ".join(RECORD_LABELS)
        raise ValidationFailed(f"unknown labels {unknown}; use: {allowed}", field="labels")
    return list(dict.fromkeys(labels))


@cache
def record_query(name: str) -> str:
    """cypher/queries/{name}.cypher as the API runs it: with the model's record labels."""
    return with_record_labels(named_query(name))


def with_record_labels(query: str) -> str:
    """A query file's text with its record-label disjunction replaced by the model's."""
    replaced, count = LABEL_LIST.subn(RECORDS, query)
    if count == 0:
        raise ValueError("the query has no record-label disjunction to refresh")
    return replaced


def link_record(row: dict[str, Any]) -> dict[str, Any]:
    link = decoded(dict(plain(row)), ("metadata",))
    link["relation"] = MemoryRelation(str(link["relation"]).lower())
    return link


def source_updated(client_id: str, rows: list[dict[str, Any]]) -> list[Changed]:
    """A link is a relationship, no record: linking or unlinking updates its source record."""
    return [
        Changed(
            client_id,
            record_label(row["source_labels"]),
            row["link"]["from"]["id"],
            ChangeAction.UPDATED,
        )
        for row in rows
    ]


def record_label(labels: list[str]) -> str:
    """The model label among a node's labels (a searchable node has one more)."""
    return next(label for label in labels if label in RECORD_LABELS)


async def link_records(
    graph: GraphExecutor,
    *,
    principal: Principal,
    from_id: str,
    to_id: str,
    relation: MemoryRelation,
    note: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> dict[str, Any]:
    principal.require_writer()
    check_text({"note": note}, "note", limit=MAX_TEXT)
    metadata_text = json_text(metadata, field="metadata")
    params = {
        "from_id": check_id(from_id, field="from_id"),
        "to_id": check_id(to_id, field="to_id"),
        "client_id": principal.client_id,
        "rel_type": enum_value(MemoryRelation, relation, field="relation").value.upper(),
    }
    if params["from_id"] == params["to_id"]:
        raise ValidationFailed("a record cannot be linked to itself", field="to_id")

    async def work(tx: Tx) -> dict[str, Any]:
        found = (await tx.run(ENDPOINTS, params))[0]
        for end in ("from_id", "to_id"):
            if found[end] is None:
                raise missing("record", params[end])
        if found["existing"]:
            raise Conflict(
                f"these records are already linked by {params['rel_type']} "
                f"(link {found['existing'][0]})",
                link_id=found["existing"][0],
            )
        props = link_props(principal, note=note, now=datetime.now(UTC), metadata=metadata_text)
        rows = await tx.run(CREATE_LINK, params | {"props": props})
        note_all(partial(source_updated, principal.client_id), rows)
        return link_record(rows[0]["link"])

    return await graph.in_transaction(work)


async def unlink_records(
    graph: GraphExecutor, *, principal: Principal, link_id: str
) -> dict[str, Any]:
    """Delete one link; returns it as it was."""
    principal.require_writer()
    params = {"link_id": check_id(link_id, field="link_id"), "client_id": principal.client_id}
    rows = await graph.write(UNLINK, params, changed=partial(source_updated, principal.client_id))
    if not rows:
        raise missing("memory link", params["link_id"])
    return link_record(rows[0]["link"])


RECORD_LINKS = f"""
MATCH (n:{RECORDS} {{id: $id}}) WHERE n.client_id = $client_id
RETURN COLLECT {{
  MATCH (n)-[r:{LINKS}]-(o)
  WHERE r.client_id = $client_id AND o.client_id = $client_id AND type(r) IN $rel_types
    AND ($direction = 'both' OR ($direction = 'out') = (startNode(r) = n))
  WITH r, startNode(r) = n AS outgoing, o ORDER BY r.created_at DESC, r.link_id
  RETURN {{link_id: r.link_id, relation: type(r), author: r.author, created_at: r.created_at,
          note: r.note, metadata: r.metadata,
          direction: CASE WHEN outgoing THEN 'out' ELSE 'in' END,
          other: {ref("o")}}}
}} AS links
"""
MAX_HOPS = 4
MAX_NEIGHBOURS = 500


async def record_links(
    graph: GraphExecutor,
    *,
    principal: Principal,
    record_id: str,
    direction: LinkDirection = LinkDirection.BOTH,
    relations: list[Any] | None = None,
) -> list[dict[str, Any]]:
    """The links of one record, newest first, with the record at the other end."""
    record_id = check_id(record_id)
    params = {
        "id": record_id,
        "client_id": principal.client_id,
        "direction": enum_value(LinkDirection, direction, field="direction").value,
        "rel_types": rel_types(relations),
    }
    rows = await graph.read(RECORD_LINKS, params)
    if not rows:
        raise missing("record", record_id)
    links = []
    for row in rows[0]["links"]:
        link = link_record(row)
        link["direction"] = LinkDirection(link["direction"])
        links.append(link)
    return links


def neighbourhood_params(
    principal: Principal,
    *,
    record_id: str,
    hops: int,
    relations: list[Any] | None,
    labels: list[str] | None,
    first: int,
) -> dict[str, Any]:
    """Parameters of cypher/queries/neighbourhood.cypher, validated."""
    if not 1 <= hops <= MAX_HOPS:
        raise ValidationFailed(f"hops must be from 1 to {MAX_HOPS}", field="hops")
    if not 1 <= first <= MAX_NEIGHBOURS:
        raise ValidationFailed(f"first must be from 1 to {MAX_NEIGHBOURS}", field="first")
    return api_params(
        {
            "id": check_id(record_id),
            "client_id": principal.client_id,
            "hops": hops,
            "relations": rel_types(relations),
            "labels": check_labels(labels),
            "first": first,
        }
    )
