"""Seed 004's memory relationships over real HTTP and Neo4j: memory records linked by reply_to,
reference and follow_up (MemoryLinks) with JSON metadata, unique per (source, target, type),
read from both ends and in neighbourhoods; typed errors and isolation."""

from __future__ import annotations

from typing import Any

from tests.integration.agent_memory_helpers import concurrently
from tests.integration.conftest import Caller
from tests.integration.memory_helpers import error_of, remember

LINK = """mutation($f: ID!, $t: ID!, $r: MemoryRelation!, $m: JSON, $note: String) {
  linkRecords(fromId: $f, toId: $t, relation: $r, metadata: $m, note: $note) {
    linkId relation metadata note from { id label } to { id label } } }"""
LINKS = """query($id: ID!, $d: LinkDirection! = BOTH, $r: [MemoryRelation!]) {
  recordLinks(id: $id, direction: $d, relations: $r) {
    linkId relation direction metadata other { id label } } }"""
AROUND = """query($id: ID!, $r: [MemoryRelation!]) {
  neighbourhood(id: $id, hops: 2, relations: $r) {
  records { distance record { id } } links { relation fromId toId metadata } } }"""
UNLINK = "mutation($id: ID!) { unlinkRecords(linkId: $id) { linkId metadata } }"
COUNT = """MATCH (:MemoryRecord {id: $f})-[r]->(:MemoryRecord {id: $t})
RETURN type(r) AS type, count(*) AS n ORDER BY type"""


def test_replies_references_and_follow_ups_with_metadata_both_ways(
    alice: Caller, bob: Caller, neo4j_session: Any
) -> None:
    question = remember(alice, text="How do I reset the boiler?")
    answer = remember(alice, text="Hold the reset button for 10 s.")
    later = remember(alice, text="Did the reset work?")
    reply = alice.data(
        LINK, {"f": answer["id"], "t": question["id"], "r": "REPLY_TO", "m": {"turn": 2}}
    )["linkRecords"]
    assert (reply["relation"], reply["metadata"]) == ("REPLY_TO", {"turn": 2})
    assert (reply["from"], reply["to"]) == (
        {"id": answer["id"], "label": "MemoryRecord"},
        {"id": question["id"], "label": "MemoryRecord"},
    )
    alice.data(LINK, {"f": later["id"], "t": answer["id"], "r": "FOLLOW_UP"})
    # Another type, or the other direction, is another relationship.
    ref = {"f": answer["id"], "t": question["id"], "r": "REFERENCE", "m": {"quote": [1, 2]}}
    alice.data(LINK, ref)
    alice.data(LINK, {"f": question["id"], "t": answer["id"], "r": "REPLY_TO"})

    seen_from_answer = alice.data(LINKS, {"id": answer["id"], "d": "OUT"})["recordLinks"]
    assert {(x["relation"], x["other"]["id"], str(x["metadata"])) for x in seen_from_answer} == {
        ("REPLY_TO", question["id"], "{'turn': 2}"),
        ("REFERENCE", question["id"], "{'quote': [1, 2]}"),
    }
    seen_from_question = alice.data(LINKS, {"id": question["id"], "d": "IN"})["recordLinks"]
    replies = [x for x in seen_from_question if x["relation"] == "REPLY_TO"]
    assert replies == [
        {
            "linkId": reply["linkId"],
            "relation": "REPLY_TO",
            "direction": "IN",
            "metadata": {"turn": 2},
            "other": {"id": answer["id"], "label": "MemoryRecord"},
        }
    ]
    only_follow_ups = alice.data(LINKS, {"id": answer["id"], "r": ["FOLLOW_UP"]})["recordLinks"]
    assert [(x["direction"], x["other"]["id"]) for x in only_follow_ups] == [("IN", later["id"])]
    around = alice.data(AROUND, {"id": later["id"], "r": ["FOLLOW_UP", "REPLY_TO"]})
    around = around["neighbourhood"]
    assert {(r["record"]["id"], r["distance"]) for r in around["records"]} == {
        (answer["id"], 1),
        (question["id"], 2),
    }
    assert {"relation": "REPLY_TO", "fromId": answer["id"], "toId": question["id"]} | {
        "metadata": {"turn": 2}
    } in around["links"]

    # The same (source, target, type) again: CONFLICT naming the existing link; nothing added.
    again = error_of(alice.gql(LINK, {"f": answer["id"], "t": question["id"], "r": "REPLY_TO"}))
    assert (again["code"], again["link_id"]) == ("CONFLICT", reply["linkId"])
    counted = neo4j_session.run(COUNT, f=answer["id"], t=question["id"]).data()
    assert counted == [{"type": "REFERENCE", "n": 1}, {"type": "REPLY_TO", "n": 1}]

    bad = error_of(alice.gql(LINK, ref | {"f": later["id"], "m": [1]}))
    assert (bad["code"], bad["field"]) == ("VALIDATION", "metadata")
    unknown = alice.gql(LINK, {"f": later["id"], "t": question["id"], "r": "LIKES"})
    assert unknown["errors"] and "LIKES" in unknown["errors"][0]["message"]

    # Another client's record is a missing one, from either end.
    theirs = remember(bob, text="bob's")
    for f, t in ((theirs["id"], question["id"]), (question["id"], theirs["id"])):
        assert error_of(bob.gql(LINK, {"f": f, "t": t, "r": "REPLY_TO"}))["code"] == "NOT_FOUND"
    assert error_of(bob.gql(LINKS, {"id": question["id"]}))["code"] == "NOT_FOUND"
    assert error_of(bob.gql(UNLINK, {"id": reply["linkId"]}))["code"] == "NOT_FOUND"
    removed = alice.data(UNLINK, {"id": reply["linkId"]})["unlinkRecords"]
    assert removed == {"linkId": reply["linkId"], "metadata": {"turn": 2}}


def test_concurrent_links_of_one_source_target_and_type_make_one(alice: Caller) -> None:
    first = remember(alice, text="first")
    second = remember(alice, text="second")
    variables = {"f": first["id"], "t": second["id"], "r": "FOLLOW_UP", "m": {"n": 1}}
    bodies = concurrently(alice, LINK, [variables] * 8)
    made = [b["data"]["linkRecords"]["linkId"] for b in bodies if not b.get("errors")]
    refused = [error_of(b) for b in bodies if b.get("errors")]
    assert len(made) == 1 and len(refused) == 7
    assert {(e["code"], e["link_id"]) for e in refused} == {("CONFLICT", made[0])}
    links = alice.data(LINKS, {"id": second["id"], "d": "IN"})["recordLinks"]
    assert [x["linkId"] for x in links] == made
