"""The demo generator's agent memory as rows (no database): every relationship joins rows of its
labels written in the same or an earlier batch, relationship properties are the API's, times
are causal, plan 0 always yields the samples, and the Cypher writes what the flags say."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from app.demo.cypher import CREATE_RELATIONSHIPS, _create_relationships
from app.demo.documents import build_documents
from app.demo.episodes import DEMO_NOW, MemoryState, build_agents
from app.demo.generator import _samples
from app.demo.memory import build_memory
from app.demo.rows import REL_KINDS, RelKind, Rows
from app.demo.shapes import build_plan
from app.domain.kernel.principal import Principal
from app.domain.lessons.links import link_props
from app.model.enums import Role

PLANS = 24


def _batches(plans: int, *, batch: int, seed: int = 7) -> list[Rows]:
    """The rows of each batch, as generate_demo builds them."""
    batches: list[Rows] = []
    history = None
    state = None
    for start in range(0, plans, batch):
        rows = Rows()
        if history is None:
            history = build_documents(rows, client_id="c", seed=seed, plans=plans, existing=[])
            agents = build_agents(rows, client_id="c", seed=seed, plans=plans, existing={})
            state = MemoryState(agents)
        assert state is not None
        for index in range(start, min(plans, start + batch)):
            plan = build_plan(
                rows,
                client_id="c",
                bucket="b",
                seed=seed,
                index=index,
                plans=plans,
                history=history,
            )
            build_memory(rows, plan=plan, state=state, client_id="c", bucket="b", seed=seed)
        batches.append(rows)
    return batches


@pytest.fixture(scope="module")
def batches() -> list[Rows]:
    return _batches(PLANS, batch=5)


def _merged(batches: list[Rows]) -> Rows:
    merged = Rows()
    for rows in batches:
        for label, nodes in rows.nodes.items():
            merged.nodes[label] += nodes
        for kind, rels in rows.rels.items():
            merged.rels[kind] += rels
        merged.uploads += rows.uploads
    return merged


def test_the_batches_do_not_change_the_rows(batches: list[Rows]) -> None:
    (whole,) = _batches(PLANS, batch=PLANS)
    merged = _merged(batches)
    assert merged.nodes == whole.nodes and merged.rels == whole.rels
    assert merged.uploads == whole.uploads


def test_relationships_join_rows_of_this_or_an_earlier_batch(batches: list[Rows]) -> None:
    written: dict[str, set[str]] = {}
    for rows in batches:
        for label, nodes in rows.nodes.items():
            written.setdefault(label, set()).update(node["id"] for node in nodes)
        for name, rels in rows.rels.items():
            kind = REL_KINDS[name]
            for rel in rels:
                assert rel["from_id"] in written[kind.source], (name, rel)
                assert rel["to_id"] in written[kind.target], (name, rel)


def test_relationship_properties_are_the_apis(batches: list[Rows]) -> None:
    principal = Principal("c", Role.AGENT, key_id="k", agent_name="analyst")
    api_link = set(link_props(principal, note="n", now=datetime.now(UTC)))
    merged = _merged(batches)
    for name, kind in REL_KINDS.items():
        rels = merged.rels[name]
        assert rels, f"the demo writes no {name}"
        for rel in rels:
            assert ("props" in rel) == kind.props, name
            if kind.link:
                assert set(rel["props"]) == api_link and rel["props"]["client_id"] == "c"
                assert rel["props"]["author"] == "agent:analyst" and rel["props"]["note"]
            elif kind.rel_type in {"READ", "WROTE"}:
                assert set(rel["props"]) == {"role", "created_at"}
    link_ids = [
        r["props"]["link_id"] for k, v in REL_KINDS.items() if v.link for r in merged.rels[k]
    ]
    assert len(set(link_ids)) == len(link_ids)


def test_times_follow_cause_and_effect(batches: list[Rows]) -> None:
    _check_times(_merged(batches))


def _check_times(merged: Rows) -> None:
    nodes = {n["id"]: n for label in merged.nodes for n in merged.nodes[label]}
    for rel in merged.rels["SPAWNED"]:
        parent, child = nodes[rel["from_id"]], nodes[rel["to_id"]]
        assert parent["created_at"] <= child["created_at"] <= parent["closed_at"]
        assert child["parent_episode_id"] == parent["id"]
    for name in ("READ_PLAN_NODE", "READ_ASSET", "READ_LESSON", "WROTE_ASSET", "WROTE_EVENT"):
        for rel in merged.rels[name]:
            episode, record = nodes[rel["from_id"]], nodes[rel["to_id"]]
            assert episode["created_at"] <= rel["props"]["created_at"] <= episode["closed_at"]
            if name == "READ_LESSON":  # lessons of earlier plans, written before
                assert record["created_at"] < rel["props"]["created_at"]
    for name in ("EVIDENCED_BY_METRIC", "EVIDENCED_BY_EPISODE"):
        for rel in merged.rels[name]:
            lesson, evidence = nodes[rel["from_id"]], nodes[rel["to_id"]]
            done = evidence.get("closed_at") or evidence["created_at"]
            assert done < lesson["created_at"], name
    for name in ("SUPPORTS", "CONTRADICTS", "CAUSED"):
        for rel in merged.rels[name]:
            source, target = nodes[rel["from_id"]], nodes[rel["to_id"]]
            assert target["created_at"] <= rel["props"]["created_at"]
            assert source["created_at"] <= rel["props"]["created_at"]
    for metric in merged.nodes["PerformanceMetric"]:
        assert metric["window_start"] < metric["window_end"] < metric["created_at"] < DEMO_NOW
    for episode in merged.nodes["AgentEpisode"]:
        assert episode["created_at"] < episode["closed_at"] == episode["updated_at"] < DEMO_NOW
        assert episode["status"] in {"success", "failed"}


def test_lessons_are_stored_as_the_api_stores_them(batches: list[Rows]) -> None:
    merged = _merged(batches)
    evidence: dict[str, dict[str, list[str]]] = {}
    for name, key in (
        ("EVIDENCED_BY_METRIC", "metric_ids"),
        ("EVIDENCED_BY_EPISODE", "episode_ids"),
    ):
        for rel in merged.rels[name]:
            evidence.setdefault(rel["from_id"], {}).setdefault(key, []).append(rel["to_id"])
    superseded = {rel["to_id"]: rel["from_id"] for rel in merged.rels["SUPERSEDES"]}
    assert superseded
    for lesson in merged.nodes["Lesson"]:
        refs = json.loads(lesson["evidence_refs"])
        found = evidence.get(lesson["id"], {})
        assert refs == {
            "metric_ids": found.get("metric_ids", []),
            "episode_ids": found.get("episode_ids", []),
        }
        assert lesson["valid_from"] == lesson["last_evidence_at"] == lesson["created_at"]
        assert lesson.get("superseded_by") == superseded.get(lesson["id"])
        assert (lesson.get("valid_to") is None) == (lesson["id"] not in superseded)
    # Lessons of old weeks have decayed below the threshold by the demo's present.
    assert {lesson["retired"] for lesson in merged.nodes["Lesson"]} == {True, False}


@pytest.mark.parametrize("seed", range(1, 13))
def test_plan_zero_has_every_sample(seed: int) -> None:
    for plans in (1, 2, 40):
        rows = Rows()
        history = build_documents(rows, client_id="c", seed=seed, plans=plans, existing=[])
        state = MemoryState(build_agents(rows, client_id="c", seed=seed, plans=plans, existing={}))
        plan = build_plan(
            rows, client_id="c", bucket="b", seed=seed, index=0, plans=plans, history=history
        )
        memory = build_memory(rows, plan=plan, state=state, client_id="c", bucket="b", seed=seed)
        samples = _samples(plan, memory)  # raises without them
        _check_times(rows)  # also in the newest week, where the metric windows are cut short
        contradicted = {r["to_id"] for r in rows.rels["CONTRADICTS"]}
        caused = {r["to_id"] for r in rows.rels["CAUSED"]}
        assert samples.lesson_id in contradicted and samples.failed_event_id in caused
        assert samples.episode_id in {r["from_id"] for r in rows.rels["SPAWNED"]}
        assert len(samples.lines()) == 3


def test_relationship_statements_follow_the_flags() -> None:
    for name, kind in REL_KINDS.items():
        assert ("SET r = row.props" in CREATE_RELATIONSHIPS[name]) == kind.props, name
    with pytest.raises(ValueError, match="declares no"):
        _create_relationships(RelKind("Lesson", "READ", "Asset", props=True))
    with pytest.raises(ValueError, match="no MemoryLink type"):
        _create_relationships(RelKind("Lesson", "EXPLAINS", "Lesson", props=True, link=True))
    with pytest.raises(ValueError, match="joins records"):
        _create_relationships(RelKind("ApiKey", "SUPPORTS", "Lesson", props=True, link=True))
    with pytest.raises(ValueError, match="carries its properties"):
        RelKind("Lesson", "SUPPORTS", "Lesson", link=True)
