"""Lessons, MemoryLinks, client snapshots and the cross-agent traversals over real HTTP, Neo4j
and S3: decay at read time, evidence refresh, retirement, supersession, links both ways, k-hop
neighbourhoods, snapshots with notes in S3, and isolation of every query and mutation.

Agents, episodes, assets, metrics and engagement events are written with plain Cypher (their
own APIs are tested elsewhere)."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.domain.lessons.rules import effective_cypher
from app.model.enums import Role
from app.settings import Settings
from tests.integration.asset_helpers import (
    MISSING_ID,
    error_code,
    own_state,
    principal_of,
    same_client_caller,
    store_for,
)
from tests.integration.conftest import Caller

SEED = """
CREATE (creator:Agent {id: $ids.creator, client_id: $c, name: 'creator',
        created_at: datetime(), updated_at: datetime()})
CREATE (analyst:Agent {id: $ids.analyst, client_id: $c, name: 'analyst-bot',
        created_at: datetime(), updated_at: datetime()})
CREATE (ig:Asset {id: $ids.asset_ig, client_id: $c, asset_type: 'reel', status: 'published',
        title: 'Pressure reel', created_by: 'agent',
        created_at: datetime(), updated_at: datetime()})
CREATE (fb:Asset {id: $ids.asset_fb, client_id: $c, asset_type: 'image', status: 'published',
        title: 'Tankless post', created_by: 'agent',
        created_at: datetime(), updated_at: datetime()})
CREATE (ig)-[:HAS_VARIANT]->(vig:AssetVariant {id: $ids.variant_ig, client_id: $c,
        asset_id: $ids.asset_ig, platform: 'ig', format: 'reel', checksum: $ids.variant_ig,
        status: 'published', created_at: datetime(), updated_at: datetime()})
CREATE (fb)-[:HAS_VARIANT]->(:AssetVariant {id: $ids.variant_fb, client_id: $c,
        asset_id: $ids.asset_fb, platform: 'fb', format: 'feed_post', checksum: $ids.variant_fb,
        status: 'published', created_at: datetime(), updated_at: datetime()})
CREATE (fb)-[:HAS_VARIANT]->(:AssetVariant {id: $ids.variant_fb_ig, client_id: $c,
        asset_id: $ids.asset_fb, platform: 'ig', format: 'feed_post', checksum: $ids.variant_fb_ig,
        status: 'ready', created_at: datetime(), updated_at: datetime()})
WITH *
UNWIND $episodes AS e
MATCH (agent:Agent {client_id: $c, name: e.agent})
CREATE (agent)-[:RAN]->(ep:AgentEpisode {id: e.id, client_id: $c, agent_name: e.agent,
        task_class: 'creative', trigger: 'planner_tick', status: e.status,
        output_summary: e.summary, created_at: datetime() - duration({minutes: e.order}),
        updated_at: datetime()})
WITH ep, e
CALL (ep, e) {
  UNWIND e.read AS asset_id MATCH (a:Asset {id: asset_id}) CREATE (ep)-[:READ]->(a)
}
CALL (ep, e) {
  UNWIND e.wrote AS asset_id MATCH (a:Asset {id: asset_id}) CREATE (ep)-[:WROTE]->(a)
}
WITH count(*) AS episodes
MATCH (ig:Asset {id: $ids.asset_ig}), (vig:AssetVariant {id: $ids.variant_ig}),
      (fb:Asset {id: $ids.asset_fb})
UNWIND $metrics AS m
MATCH (target:Asset|AssetVariant {id: m.target})
CREATE (metric:PerformanceMetric {id: m.id, client_id: $c, platform: m.platform,
        metric_type: 'saves', value: m.value, window_start: datetime(m.start),
        window_end: datetime(m.start) + duration({days: 7}),
        created_at: datetime(), updated_at: datetime()})-[:MEASURES]->(target)
WITH count(*) AS metrics
MATCH (e4:AgentEpisode {id: $ids.e4}), (e2:AgentEpisode {id: $ids.e2})
CREATE (e4)-[:WROTE]->(:EngagementEvent {id: $ids.ev_fail, client_id: $c, platform: 'ig',
        event_kind: 'comment_reply', actor: 'ai', result: 'fail', failure_reason: 'rate_limited',
        created_at: datetime($in_window), updated_at: datetime()})
CREATE (e2)-[:WROTE]->(:EngagementEvent {id: $ids.ev_ok, client_id: $c, platform: 'fb',
        event_kind: 'dm_sent', actor: 'ai', result: 'success',
        created_at: datetime($in_window), updated_at: datetime()})
CREATE (:PublishRun {id: $ids.run_failed, client_id: $c, package_id: $ids.creator,
        platform: 'tiktok', status: 'failed', error: 'upload timed out',
        created_at: datetime($in_window), updated_at: datetime()})
"""
NAMES = [
    "creator",
    "analyst",
    "asset_ig",
    "asset_fb",
    "variant_ig",
    "variant_fb",
    "variant_fb_ig",
    "e1",
    "e2",
    "e3",
    "e4",
    "m_ig",
    "m_ig_asset",
    "m_fb",
    "m_old",
    "ev_fail",
    "ev_ok",
    "run_failed",
]
NOW = datetime.now(UTC).replace(microsecond=0)
WINDOW_START = NOW - timedelta(days=10)
WINDOW_END = NOW + timedelta(days=1)
IN_WINDOW = (NOW - timedelta(days=5)).isoformat()
OUT_OF_WINDOW = (NOW - timedelta(days=200)).isoformat()

LESSON = """id scope lessonType statement evidenceRefs confidence decayHalfLifeDays
    lastEvidenceAt validFrom validTo supersededBy retired effectiveConfidence active"""
CREATE_LESSON = f"""mutation($input: CreateLessonInput!) {{ createLesson(input: $input) {{
    {LESSON} evidenceMetrics {{ id }} evidenceEpisodes {{ id }} }} }}"""
ADD_EVIDENCE = f"""mutation($id: ID!, $m: [ID!], $e: [ID!]) {{
    addLessonEvidence(id: $id, metricIds: $m, episodeIds: $e) {{ {LESSON} }} }}"""
SUPERSEDE = f"""mutation($old: ID!, $new: CreateLessonInput!, $note: String) {{
    supersedeLesson(oldId: $old, newLesson: $new, note: $note) {{
      {LESSON} supersedes {{ id validTo supersededBy }} }} }}"""
GET_LESSON = f"query($id: ID!) {{ lesson(id: $id) {{ {LESSON} }} }}"
ACTIVE = """query($w: LessonWhere, $all: Boolean! = false) {
    activeLessons(where: $w, includeRetired: $all) { id retired effectiveConfidence } }"""
RETIRE = "mutation { retireStaleLessons { count lessonIds } }"
REF = "id label title"
LINK = f"""mutation($f: ID!, $t: ID!, $r: MemoryRelation!, $note: String) {{
    linkRecords(fromId: $f, toId: $t, relation: $r, note: $note) {{
      linkId relation author createdAt note from {{ {REF} }} to {{ {REF} }} }} }}"""
UNLINK = "mutation($id: ID!) { unlinkRecords(linkId: $id) { linkId relation from { id } } }"
RECORD_LINKS = f"""query($id: ID!, $d: LinkDirection! = BOTH, $r: [MemoryRelation!]) {{
    recordLinks(id: $id, direction: $d, relations: $r) {{
      linkId relation direction author note other {{ {REF} }} }} }}"""
NEIGHBOURHOOD = f"""query($id: ID!, $hops: Int! = 1, $r: [MemoryRelation!], $l: [String!],
    $first: Int! = 100) {{ neighbourhood(id: $id, hops: $hops, relations: $r, labels: $l,
    first: $first) {{ start {{ {REF} }} records {{ distance record {{ {REF} }} }}
    links {{ linkId relation fromId toId }} }} }}"""
FROM_AGENT = """query($a: String!, $p: Platform!, $first: Int! = 50) {
    lessonsFromAgentOnPlatform(agentName: $a, platform: $p, first: $first) {
    agent { name } total lessons { lesson { id statement }
    derivedFrom { episode { id } via assets { id } } evidenceMetrics { id }
    evidenceEpisodes { id } } } }"""
CONTRADICTIONS = f"""query($id: ID!) {{ contradictions(lessonId: $id) {{ lesson {{ id }}
    links {{ linkId relation direction other {{ {REF} }} }} supersededBy {{ id }}
    lessons {{ id statement }} }} }}"""
CAUSES = """query($id: ID!) { episodesCausingFailure(engagementEventId: $id) { event { id result }
    failed episodes { episode { id status } agent { name } via causedLinkIds } } }"""
SNAPSHOT = """mutation($from: DateTime!, $to: DateTime!, $top: Int! = 10) {
    generateClientSnapshot(from: $from, to: $to, top: $top) { id timeWindowStart timeWindowEnd
      topAssets topLessons risks strategyNotesUri strategyNotes
      assets { id } lessons { id } } }"""


def seed(session: Any, client_id: str) -> dict[str, str]:
    ids = {name: str(uuid.uuid4()) for name in NAMES}
    episodes = [
        {"id": ids["e1"], "agent": "creator", "read": [ids["asset_ig"]], "wrote": []},
        {"id": ids["e2"], "agent": "creator", "read": [], "wrote": [ids["asset_fb"]]},
        {"id": ids["e3"], "agent": "analyst-bot", "read": [ids["asset_ig"]], "wrote": []},
        {"id": ids["e4"], "agent": "creator", "read": [], "wrote": [ids["asset_ig"]]},
    ]
    for order, episode in enumerate(episodes):
        status = "failed" if episode["id"] == ids["e4"] else "success"
        episode |= {"order": order, "status": status, "summary": f"episode {order + 1}"}
    metrics = [
        {"id": ids["m_ig"], "target": ids["variant_ig"], "value": 100.0, "platform": "ig"},
        {"id": ids["m_ig_asset"], "target": ids["asset_ig"], "value": 30.0, "platform": "ig"},
        {"id": ids["m_fb"], "target": ids["asset_fb"], "value": 50.0, "platform": "fb"},
        {"id": ids["m_old"], "target": ids["asset_fb"], "value": 999.0, "platform": "fb"},
    ]
    for metric in metrics:
        metric["start"] = OUT_OF_WINDOW if metric["id"] == ids["m_old"] else IN_WINDOW
    params = {"ids": ids, "c": client_id, "in_window": IN_WINDOW}
    session.run(SEED, params | {"episodes": episodes, "metrics": metrics}).consume()
    return ids


@pytest.fixture
def world(alice: Caller, neo4j_session: Any) -> dict[str, str]:
    return seed(neo4j_session, alice.client_id)


def new_lesson(**overrides: Any) -> dict[str, Any]:
    fields = {
        "scope": "PLATFORM",
        "lessonType": "WHAT_WORKED",
        "statement": f"Price hooks lift saves {uuid.uuid4().hex[:6]}",
        "confidence": 0.8,
        "decayHalfLifeDays": 10,
    }
    return fields | overrides


def create_lesson(caller: Caller, **overrides: Any) -> dict[str, Any]:
    return dict(caller.data(CREATE_LESSON, {"input": new_lesson(**overrides)})["createLesson"])


def link(caller: Caller, a: str, b: str, relation: str, note: str | None = None) -> str:
    variables = {"f": a, "t": b, "r": relation, "note": note}
    return str(caller.data(LINK, variables)["linkRecords"]["linkId"])


def age_evidence(session: Any, lesson_id: str, days: float) -> None:
    session.run(
        "MATCH (l:Lesson {id: $id}) SET l.last_evidence_at = datetime() - duration({seconds: $s})",
        id=lesson_id,
        s=int(days * 86_400),
    ).consume()


def get_lesson(caller: Caller, lesson_id: str) -> dict[str, Any]:
    return dict(caller.data(GET_LESSON, {"id": lesson_id})["lesson"])


def stored(session: Any, query: str, **params: Any) -> Any:
    return session.run(query, **params).single()[0]


def counted(caller: Caller, query: str, variables: dict[str, Any]) -> tuple[Any, int]:
    body = caller.gql(query, variables, **{"X-Agentmem-Roundtrips": "1"})
    assert not body.get("errors"), body["errors"]
    return body["data"], body["extensions"]["cypherRoundTrips"]


def graph_state(session: Any, client_id: str) -> list[Any]:
    """Every node of a client with its properties and its outgoing relationships' properties."""
    rows = session.run(
        """MATCH (n {client_id: $c}) OPTIONAL MATCH (n)-[r]->(m)
        WITH n, r, m ORDER BY type(r), m.id, r.link_id
        RETURN n.id AS id, properties(n) AS props, collect([type(r), m.id, properties(r)]) AS rels
        ORDER BY id""",
        c=client_id,
    )
    return [(own_state([], r["props"])[1], r["rels"]) for r in rows]


def test_effective_confidence_decays_at_read_time_and_evidence_refreshes_it(
    alice: Caller, world: dict[str, str], neo4j_session: Any
) -> None:
    lesson = create_lesson(alice, evidenceEpisodeIds=[world["e1"]])
    assert lesson["effectiveConfidence"] == pytest.approx(0.8, abs=1e-4)
    assert lesson["active"] and not lesson["retired"] and lesson["validTo"] is None
    assert lesson["evidenceEpisodes"] == [{"id": world["e1"]}]
    assert lesson["evidenceRefs"] == {"episode_ids": [world["e1"]], "metric_ids": []}

    age_evidence(neo4j_session, lesson["id"], days=10)  # one half-life
    aged = get_lesson(alice, lesson["id"])
    assert aged["confidence"] == 0.8  # stored confidence never decays
    assert aged["effectiveConfidence"] == pytest.approx(0.4, abs=1e-3)
    # The same rule in Cypher (what activeLessons and snapshots filter and rank by).
    in_cypher = f"MATCH (l:Lesson {{id: $id}}) RETURN {effective_cypher('l')}"
    now = datetime.now(UTC)
    decayed = stored(neo4j_session, in_cypher, id=lesson["id"], now=now)
    assert decayed == pytest.approx(aged["effectiveConfidence"], abs=1e-5)
    active = alice.data(ACTIVE)["activeLessons"]
    assert [(x["id"], round(x["effectiveConfidence"], 3)) for x in active] == [(lesson["id"], 0.4)]

    # Evidence refreshes: a new metric restarts the clock and raises the confidence by 10%
    # of its distance to 1; evidence already linked changes nothing.
    refreshed = alice.data(ADD_EVIDENCE, {"id": lesson["id"], "m": [world["m_ig"]]})
    refreshed = refreshed["addLessonEvidence"]
    assert refreshed["confidence"] == pytest.approx(0.82)
    assert refreshed["effectiveConfidence"] == pytest.approx(0.82, abs=1e-4)
    assert refreshed["lastEvidenceAt"] > aged["lastEvidenceAt"]
    assert refreshed["evidenceRefs"]["metric_ids"] == [world["m_ig"]]
    again = alice.data(ADD_EVIDENCE, {"id": lesson["id"], "m": [world["m_ig"]], "e": [world["e1"]]})
    assert again["addLessonEvidence"]["confidence"] == pytest.approx(0.82)
    rels = "MATCH (:Lesson {id: $id})-[r:EVIDENCED_BY]->() RETURN count(r)"
    assert stored(neo4j_session, rels, id=lesson["id"]) == 2
    none = alice.gql(ADD_EVIDENCE, {"id": lesson["id"], "m": [], "e": []})
    assert error_code(none) == "VALIDATION"
    absent = alice.gql(ADD_EVIDENCE, {"id": lesson["id"], "m": [MISSING_ID]})
    assert error_code(absent) == "NOT_FOUND"
    assert stored(neo4j_session, rels, id=lesson["id"]) == 2


def test_retired_lessons_are_hidden_by_default_but_readable(
    settings: Settings, alice: Caller, world: dict[str, str], neo4j_session: Any
) -> None:
    strong = create_lesson(alice, statement="Strong lesson", confidence=0.9)
    fading = create_lesson(alice, statement="Fading lesson", confidence=0.8)
    doomed = create_lesson(alice, statement="Doomed lesson", confidence=0.8)
    weak = create_lesson(alice, statement="Born weak", confidence=0.15)
    assert weak["retired"] and not weak["active"]
    age_evidence(neo4j_session, fading["id"], days=10)  # 0.4: still active
    age_evidence(neo4j_session, doomed["id"], days=30)  # 0.1: below the 0.2 threshold
    unmarked = "MATCH (l:Lesson {id: $id}) RETURN l.retired"
    assert stored(neo4j_session, unmarked, id=doomed["id"]) is False

    listed = alice.data(ACTIVE)["activeLessons"]
    assert [x["id"] for x in listed] == [strong["id"], fading["id"]]
    # The read retired the stale lesson on the way (lazy sweep).
    assert stored(neo4j_session, unmarked, id=doomed["id"]) is True
    everything = alice.data(ACTIVE, {"all": True})["activeLessons"]
    assert [x["id"] for x in everything] == [strong["id"], fading["id"], weak["id"], doomed["id"]]
    assert [x["retired"] for x in everything] == [False, False, True, True]
    by_id = get_lesson(alice, doomed["id"])
    assert by_id["retired"] and not by_id["active"]
    assert by_id["effectiveConfidence"] == pytest.approx(0.1, abs=1e-3)
    filtered = alice.data(ACTIVE, {"w": {"statementContains": "fading", "scope": "PLATFORM"}})
    assert [x["id"] for x in filtered["activeLessons"]] == [fading["id"]]

    # The admin sweep marks what decayed since; agents may not run it.
    age_evidence(neo4j_session, fading["id"], days=40)
    assert error_code(alice.gql(RETIRE)) == "FORBIDDEN"
    admin = same_client_caller(settings, neo4j_session, alice, Role.ADMIN)
    swept = admin.data(RETIRE)["retireStaleLessons"]
    assert swept == {"count": 1, "lessonIds": [fading["id"]]}
    assert admin.data(RETIRE)["retireStaleLessons"]["count"] == 0
    # New evidence brings a retired lesson back.
    revived = alice.data(ADD_EVIDENCE, {"id": fading["id"], "e": [world["e2"]]})
    assert revived["addLessonEvidence"]["active"] is True
    assert not revived["addLessonEvidence"]["retired"]


def test_supersede_keeps_both_lessons_with_a_validity_interval(
    alice: Caller, world: dict[str, str], neo4j_session: Any
) -> None:
    old = create_lesson(alice, statement="Morning posts win")
    replacement = new_lesson(
        statement="Evening posts win",
        lessonType="AUDIENCE_INSIGHT",
        evidenceMetricIds=[world["m_ig"]],
    )
    new = alice.data(SUPERSEDE, {"old": old["id"], "new": replacement, "note": "new data"})
    new = new["supersedeLesson"]
    assert new["statement"] == "Evening posts win" and new["validTo"] is None
    assert [x["id"] for x in new["supersedes"]] == [old["id"]]
    closed = new["supersedes"][0]
    assert closed["supersededBy"] == new["id"] and closed["validTo"] >= old["validFrom"]
    kept = get_lesson(alice, old["id"])
    assert kept["validFrom"] == old["validFrom"] and kept["validTo"] == closed["validTo"]
    assert kept["validTo"] <= new["validFrom"] and not kept["active"]
    pattern = "MATCH (:Lesson {id: $new})-[r:SUPERSEDES|CONTRADICTS]->(:Lesson {id: $old}) "
    types = stored(neo4j_session, pattern + "RETURN collect(type(r))", new=new["id"], old=old["id"])
    assert sorted(types) == ["CONTRADICTS", "SUPERSEDES"]
    active = [x["id"] for x in alice.data(ACTIVE)["activeLessons"]]
    assert active == [new["id"]]

    before = graph_state(neo4j_session, alice.client_id)
    twice = alice.gql(SUPERSEDE, {"old": old["id"], "new": new_lesson()})
    assert error_code(twice) == "INVALID_TRANSITION"
    evidence = alice.gql(ADD_EVIDENCE, {"id": old["id"], "e": [world["e1"]]})
    assert error_code(evidence) == "INVALID_TRANSITION"
    bad = alice.gql(SUPERSEDE, {"old": new["id"], "new": new_lesson(confidence=2)})
    assert error_code(bad) == "VALIDATION"
    assert graph_state(neo4j_session, alice.client_id) == before

    data, trips = counted(alice, CONTRADICTIONS, {"id": old["id"]})
    assert trips == 1
    found = data["contradictions"]
    assert [x["id"] for x in found["supersededBy"]] == [new["id"]]
    assert [x["id"] for x in found["lessons"]] == [new["id"]]
    assert [(x["relation"], x["direction"], x["other"]["id"]) for x in found["links"]] == [
        ("CONTRADICTS", "IN", new["id"])
    ]
    # A CONTRADICTS link from any record counts too, in either direction.
    third = create_lesson(alice, statement="Weekend posts win")
    link(alice, old["id"], third["id"], "CONTRADICTS")
    link(alice, world["m_fb"], old["id"], "CONTRADICTS", note="fb numbers disagree")
    again = alice.data(CONTRADICTIONS, {"id": old["id"]})["contradictions"]
    assert {(x["direction"], x["other"]["id"]) for x in again["links"]} == {
        ("IN", new["id"]),
        ("OUT", third["id"]),
        ("IN", world["m_fb"]),
    }
    assert {x["id"] for x in again["lessons"]} == {new["id"], third["id"]}
    new_side = alice.data(CONTRADICTIONS, {"id": new["id"]})["contradictions"]
    assert new_side["supersededBy"] == [] and [x["id"] for x in new_side["lessons"]] == [old["id"]]


def test_links_both_ways_and_unlink(
    alice: Caller, world: dict[str, str], neo4j_session: Any
) -> None:
    lesson = create_lesson(alice, statement="Short hooks work")
    made = alice.data(
        LINK, {"f": lesson["id"], "t": world["e1"], "r": "DERIVED_FROM", "note": "from run 1"}
    )["linkRecords"]
    assert made["relation"] == "DERIVED_FROM" and made["note"] == "from run 1"
    assert made["author"] == "agent:tester"
    assert made["from"] == {"id": lesson["id"], "label": "Lesson", "title": "Short hooks work"}
    assert made["to"] == {"id": world["e1"], "label": "AgentEpisode", "title": "episode 1"}
    supports = link(alice, world["asset_ig"], lesson["id"], "SUPPORTS")
    query = "MATCH ()-[r:DERIVED_FROM {link_id: $id}]->() RETURN r.client_id"
    assert stored(neo4j_session, query, id=made["linkId"]) == alice.client_id

    out = alice.data(RECORD_LINKS, {"id": lesson["id"], "d": "OUT"})["recordLinks"]
    assert [(x["linkId"], x["direction"], x["other"]["id"]) for x in out] == [
        (made["linkId"], "OUT", world["e1"])
    ]
    incoming = alice.data(RECORD_LINKS, {"id": world["e1"], "d": "IN"})["recordLinks"]
    assert [(x["relation"], x["other"]["title"]) for x in incoming] == [
        ("DERIVED_FROM", "Short hooks work")
    ]
    both = alice.data(RECORD_LINKS, {"id": lesson["id"]})["recordLinks"]
    assert [(x["linkId"], x["direction"]) for x in both] == [
        (supports, "IN"),
        (made["linkId"], "OUT"),
    ]
    only = alice.data(RECORD_LINKS, {"id": lesson["id"], "r": ["SUPPORTS"]})["recordLinks"]
    assert [x["other"]["label"] for x in only] == ["Asset"]

    before = graph_state(neo4j_session, alice.client_id)
    duplicate = alice.gql(LINK, {"f": lesson["id"], "t": world["e1"], "r": "DERIVED_FROM"})
    assert error_code(duplicate) == "CONFLICT"
    itself = alice.gql(LINK, {"f": lesson["id"], "t": lesson["id"], "r": "SUPPORTS"})
    assert error_code(itself) == "VALIDATION"
    assert graph_state(neo4j_session, alice.client_id) == before

    removed = alice.data(UNLINK, {"id": made["linkId"]})["unlinkRecords"]
    assert removed == {
        "linkId": made["linkId"],
        "relation": "DERIVED_FROM",
        "from": {"id": lesson["id"]},
    }
    assert alice.data(RECORD_LINKS, {"id": world["e1"]})["recordLinks"] == []
    assert error_code(alice.gql(UNLINK, {"id": made["linkId"]})) == "NOT_FOUND"
    assert stored(neo4j_session, "MATCH (l:Lesson {id: $id}) RETURN count(l)", id=lesson["id"]) == 1


def test_k_hop_neighbourhood_filtered_by_relation_and_label(
    alice: Caller, world: dict[str, str]
) -> None:
    lesson = create_lesson(alice, statement="Hub lesson")
    link(alice, lesson["id"], world["e1"], "DERIVED_FROM")  # hop 1
    link(alice, world["e1"], world["ev_fail"], "CAUSED")  # hop 2
    link(alice, world["ev_fail"], world["e4"], "SUPPORTS")  # hop 3 (pointing away)
    link(alice, world["asset_ig"], lesson["id"], "VALIDATES")  # hop 1, incoming
    link(alice, world["asset_ig"], world["e1"], "SUPPORTS")  # a second way to e1

    def hood(**variables: Any) -> dict[str, Any]:
        data, trips = counted(alice, NEIGHBOURHOOD, {"id": lesson["id"]} | variables)
        assert trips == 1
        return dict(data["neighbourhood"])

    one = hood()
    assert one["start"] == {"id": lesson["id"], "label": "Lesson", "title": "Hub lesson"}
    assert {(x["record"]["id"], x["distance"]) for x in one["records"]} == {
        (world["e1"], 1),
        (world["asset_ig"], 1),
    }
    assert len(one["links"]) == 3  # among the start and the two: including asset -> e1
    three = hood(hops=3)
    assert [(x["record"]["id"], x["distance"]) for x in three["records"]][2:] == [
        (world["ev_fail"], 2),
        (world["e4"], 3),
    ]
    assert {x["relation"] for x in three["links"]} == {
        "DERIVED_FROM",
        "CAUSED",
        "SUPPORTS",
        "VALIDATES",
    }
    no_caused = hood(hops=4, r=["DERIVED_FROM", "SUPPORTS", "VALIDATES"])
    assert {x["record"]["id"] for x in no_caused["records"]} == {world["e1"], world["asset_ig"]}
    episodes = hood(hops=3, l=["AgentEpisode"])
    assert [x["record"]["id"] for x in episodes["records"]] == [world["e1"], world["e4"]]
    assert {(x["fromId"], x["toId"]) for x in episodes["links"]} == {(lesson["id"], world["e1"])}
    assert len(hood(hops=3, first=1)["records"]) == 1
    for bad in ({"hops": 5}, {"hops": 0}, {"l": ["ApiKey"]}, {"first": 0}):
        assert error_code(alice.gql(NEIGHBOURHOOD, {"id": lesson["id"]} | bad)) == "VALIDATION"


def test_lessons_from_agent_on_platform(alice: Caller, world: dict[str, str]) -> None:
    # e1 (creator) READ the ig-published asset; e4 (creator) WROTE it; e2 (creator) WROTE the
    # fb-published asset (its ig variant is not published); e3 is another agent's.
    evidenced = create_lesson(
        alice,
        statement="Evidenced by e1",
        evidenceEpisodeIds=[world["e1"]],
        evidenceMetricIds=[world["m_ig"]],
        confidence=0.9,
    )
    derived = create_lesson(alice, statement="Derived from e4", confidence=0.7)
    link(alice, derived["id"], world["e4"], "DERIVED_FROM")
    both = create_lesson(alice, statement="Both ways e1", evidenceEpisodeIds=[world["e1"]])
    link(alice, both["id"], world["e1"], "DERIVED_FROM")
    fb_only = create_lesson(alice, statement="From e2", evidenceEpisodeIds=[world["e2"]])
    other_agent = create_lesson(alice, statement="From e3", evidenceEpisodeIds=[world["e3"]])
    supports_only = create_lesson(alice, statement="Supports e1 only")
    link(alice, supports_only["id"], world["e1"], "SUPPORTS")
    backwards = create_lesson(alice, statement="e4 derived from me")
    link(alice, world["e4"], backwards["id"], "DERIVED_FROM")

    data, trips = counted(alice, FROM_AGENT, {"a": "creator", "p": "IG"})
    assert trips == 1
    result = data["lessonsFromAgentOnPlatform"]
    assert result["agent"] == {"name": "creator"}
    by_id = {x["lesson"]["id"]: x for x in result["lessons"]}
    # Highest effective confidence first.
    assert [x["lesson"]["id"] for x in result["lessons"]] == [
        evidenced["id"],
        both["id"],
        derived["id"],
    ]
    first = by_id[evidenced["id"]]
    assert first["derivedFrom"] == [
        {
            "episode": {"id": world["e1"]},
            "via": ["EVIDENCED_BY"],
            "assets": [{"id": world["asset_ig"]}],
        }
    ]
    assert first["evidenceMetrics"] == [{"id": world["m_ig"]}]
    assert first["evidenceEpisodes"] == [{"id": world["e1"]}]
    assert by_id[both["id"]]["derivedFrom"][0]["via"] == ["DERIVED_FROM", "EVIDENCED_BY"]
    assert by_id[derived["id"]]["derivedFrom"][0]["episode"] == {"id": world["e4"]}
    assert by_id[derived["id"]]["evidenceEpisodes"] == []
    assert result["total"] == 3
    top = alice.data(FROM_AGENT, {"a": "creator", "p": "IG", "first": 1})
    top = top["lessonsFromAgentOnPlatform"]
    assert top["total"] == 3 and [x["lesson"]["id"] for x in top["lessons"]] == [evidenced["id"]]
    too_many = alice.gql(FROM_AGENT, {"a": "creator", "p": "IG", "first": 501})
    assert error_code(too_many) == "VALIDATION"

    fb = alice.data(FROM_AGENT, {"a": "creator", "p": "FB"})["lessonsFromAgentOnPlatform"]
    assert [x["lesson"]["id"] for x in fb["lessons"]] == [fb_only["id"]]
    analyst = alice.data(FROM_AGENT, {"a": "analyst-bot", "p": "IG"})
    assert [x["lesson"]["id"] for x in analyst["lessonsFromAgentOnPlatform"]["lessons"]] == [
        other_agent["id"]
    ]
    tiktok = alice.data(FROM_AGENT, {"a": "creator", "p": "TIKTOK"})
    assert tiktok["lessonsFromAgentOnPlatform"]["lessons"] == []
    assert error_code(alice.gql(FROM_AGENT, {"a": "nobody", "p": "IG"})) == "NOT_FOUND"


def test_episodes_causing_failure(alice: Caller, world: dict[str, str]) -> None:
    caused = link(alice, world["e1"], world["ev_fail"], "CAUSED")
    link(alice, world["e3"], world["ev_fail"], "SUPPORTS")  # not a cause
    link(alice, world["e2"], world["ev_ok"], "CAUSED")  # not a failure
    data, trips = counted(alice, CAUSES, {"id": world["ev_fail"]})
    assert trips == 1
    causes = data["episodesCausingFailure"]
    assert causes["event"] == {"id": world["ev_fail"], "result": "FAIL"} and causes["failed"]
    # Newest first: e1 was created after e4.
    assert causes["episodes"] == [
        {
            "episode": {"id": world["e1"], "status": "SUCCESS"},
            "agent": {"name": "creator"},
            "via": ["CAUSED"],
            "causedLinkIds": [caused],
        },
        {
            "episode": {"id": world["e4"], "status": "FAILED"},
            "agent": {"name": "creator"},
            "via": ["WROTE"],
            "causedLinkIds": [],
        },
    ]
    fine = alice.data(CAUSES, {"id": world["ev_ok"]})["episodesCausingFailure"]
    assert fine["failed"] is False and fine["episodes"] == []
    assert error_code(alice.gql(CAUSES, {"id": world["e1"]})) == "NOT_FOUND"


def test_client_snapshot_with_strategy_notes_in_s3(
    settings: Settings, alice: Caller, world: dict[str, str], neo4j_session: Any
) -> None:
    best = create_lesson(alice, statement="Reels beat images", confidence=0.95)
    good = create_lesson(alice, statement="Ask for the address early", confidence=0.6)
    faded = create_lesson(alice, statement="Faded belief", confidence=0.9)
    age_evidence(neo4j_session, faded["id"], days=60)
    failure = create_lesson(
        alice,
        statement="Replies at night hit rate limits",
        lessonType="WHAT_FAILED",
        confidence=0.5,
    )
    window = {"from": WINDOW_START.isoformat(), "to": WINDOW_END.isoformat()}
    snap = alice.data(SNAPSHOT, window)["generateClientSnapshot"]
    # Asset scores: ig 100 (variant) + 30 (asset); fb 50 (its old metric is outside the window).
    assert snap["topAssets"] == [world["asset_ig"], world["asset_fb"]]
    assert {x["id"] for x in snap["assets"]} == {world["asset_ig"], world["asset_fb"]}
    # Lessons still valid at the window's end, by effective confidence now; faded is retired.
    assert snap["topLessons"][:2] == [best["id"], good["id"]]
    assert faded["id"] not in snap["topLessons"] and failure["id"] in snap["topLessons"]
    kinds = [r["kind"] for r in snap["risks"]]
    assert kinds == ["failed_publish_runs", "failed_engagement", "failure_lesson"]
    assert snap["risks"][0] | {"sample_ids": None} == {
        "kind": "failed_publish_runs",
        "platform": "tiktok",
        "count": 1,
        "sample_ids": None,
        "errors": ["upload timed out"],
    }
    assert snap["risks"][1]["failure_reason"] == "rate_limited"
    assert snap["risks"][1]["sample_ids"] == [world["ev_fail"]]
    assert snap["risks"][2]["lesson_id"] == failure["id"]

    uri = snap["strategyNotesUri"]
    assert uri.startswith(f"s3://{settings.s3_bucket}/client/{alice.client_id}/snapshots/")
    notes = asyncio.run(store_for(settings).get(principal_of(alice), uri)).decode()
    assert notes == snap["strategyNotes"]
    assert "1. **Pressure reel** (reel): 130 over 2 metrics" in notes
    assert "Reels beat images" in notes and "upload timed out" in notes
    assert "1 failed comment_reply engagement events (rate_limited)" in notes
    ranks = neo4j_session.run(
        "MATCH (:ClientSnapshot {id: $id})-[r:TOP_ASSET]->(a) RETURN a.id AS id, r.rank AS rank, "
        "r.score AS score ORDER BY r.rank",
        id=snap["id"],
    ).data()
    assert ranks == [
        {"id": world["asset_ig"], "rank": 1, "score": 130.0},
        {"id": world["asset_fb"], "rank": 2, "score": 50.0},
    ]
    top_lessons = "MATCH (:ClientSnapshot {id: $id})-[r:TOP_LESSON]->() RETURN count(r)"
    assert stored(neo4j_session, top_lessons, id=snap["id"]) == len(snap["topLessons"])
    empty = alice.data(SNAPSHOT, {"from": "2020-01-01T00:00:00Z", "to": "2020-02-01T00:00:00Z"})
    assert empty["generateClientSnapshot"]["topAssets"] == []
    assert "No metrics in this window." in empty["generateClientSnapshot"]["strategyNotes"]

    analyst = same_client_caller(settings, neo4j_session, alice, Role.ANALYST)
    before = graph_state(neo4j_session, alice.client_id)
    reversed_window = {"from": window["to"], "to": window["from"]}
    assert error_code(alice.gql(SNAPSHOT, reversed_window)) == "VALIDATION"
    assert error_code(alice.gql(SNAPSHOT, window | {"top": 0})) == "VALIDATION"
    assert error_code(analyst.gql(SNAPSHOT, window)) == "FORBIDDEN"
    assert error_code(analyst.gql(CREATE_LESSON, {"input": new_lesson()})) == "FORBIDDEN"
    assert graph_state(neo4j_session, alice.client_id) == before


def test_isolation_of_every_query_and_mutation(
    settings: Settings, alice: Caller, bob: Caller, world: dict[str, str], neo4j_session: Any
) -> None:
    lesson = create_lesson(alice, statement="Alice's secret", evidenceEpisodeIds=[world["e1"]])
    stale = create_lesson(alice, statement="Alice's stale lesson")
    age_evidence(neo4j_session, stale["id"], days=90)
    link_id = link(alice, lesson["id"], world["e1"], "DERIVED_FROM")
    link(alice, world["e1"], world["ev_fail"], "CAUSED")
    theirs = seed(neo4j_session, bob.client_id)
    bob_lesson = create_lesson(bob, statement="Bob's lesson", evidenceEpisodeIds=[theirs["e1"]])
    bob_admin = same_client_caller(settings, neo4j_session, bob, Role.ADMIN)
    alice_before = graph_state(neo4j_session, alice.client_id)

    uses: list[tuple[str, str, Any]] = [
        (GET_LESSON, lesson["id"], lambda x: {"id": x}),
        (RECORD_LINKS, lesson["id"], lambda x: {"id": x}),
        (NEIGHBOURHOOD, lesson["id"], lambda x: {"id": x, "hops": 2}),
        (CONTRADICTIONS, lesson["id"], lambda x: {"id": x}),
        (CAUSES, world["ev_fail"], lambda x: {"id": x}),
        (ADD_EVIDENCE, lesson["id"], lambda x: {"id": x, "e": [theirs["e2"]]}),
        (ADD_EVIDENCE, world["m_ig"], lambda x: {"id": bob_lesson["id"], "m": [x]}),
        (ADD_EVIDENCE, world["e2"], lambda x: {"id": bob_lesson["id"], "e": [x]}),
        (SUPERSEDE, lesson["id"], lambda x: {"old": x, "new": new_lesson()}),
        (CREATE_LESSON, world["m_ig"], lambda x: {"input": new_lesson(evidenceMetricIds=[x])}),
        (CREATE_LESSON, world["e1"], lambda x: {"input": new_lesson(evidenceEpisodeIds=[x])}),
        (LINK, lesson["id"], lambda x: {"f": bob_lesson["id"], "t": x, "r": "SUPPORTS"}),
        (LINK, world["e1"], lambda x: {"f": x, "t": theirs["e1"], "r": "CAUSED"}),
        (LINK, world["ev_fail"], lambda x: {"f": x, "t": lesson["id"], "r": "CAUSED"}),
        (UNLINK, link_id, lambda x: {"id": x}),
    ]
    for query, alice_id, variables in uses:
        used, absent = bob.gql(query, variables(alice_id)), bob.gql(query, variables(MISSING_ID))
        assert error_code(used) == error_code(absent) == "NOT_FOUND", query
        assert anonymous(used, alice_id) == anonymous(absent, MISSING_ID), query
        assert used["data"] is None and absent["data"] is None

    # Lists and traversals by name answer from bob's own records only.
    assert [x["id"] for x in bob.data(ACTIVE, {"all": True})["activeLessons"]] == [bob_lesson["id"]]
    mine = bob.data(FROM_AGENT, {"a": "creator", "p": "IG"})["lessonsFromAgentOnPlatform"]
    assert [x["lesson"]["id"] for x in mine["lessons"]] == [bob_lesson["id"]]
    window = {"from": WINDOW_START.isoformat(), "to": WINDOW_END.isoformat()}
    snap = bob.data(SNAPSHOT, window)["generateClientSnapshot"]
    assert snap["topAssets"] == [theirs["asset_ig"], theirs["asset_fb"]]
    assert snap["topLessons"] == [bob_lesson["id"]]
    assert f"/client/{bob.client_id}/" in snap["strategyNotesUri"]
    assert bob_admin.data(RETIRE)["retireStaleLessons"]["count"] == 0
    assert (
        stored(neo4j_session, "MATCH (l:Lesson {id: $id}) RETURN l.retired", id=stale["id"])
        is False
    )
    assert graph_state(neo4j_session, alice.client_id) == alice_before


def anonymous(body: dict[str, Any], value: str) -> str:
    """The error message with the id it names blanked out."""
    return str(body["errors"][0]["message"]).replace(value, "X")
