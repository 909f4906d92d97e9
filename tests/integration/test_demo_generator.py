"""The demo data generator against the real Neo4j and S3: counts, shape, isolation, collisions."""

from __future__ import annotations

import asyncio
import hashlib
import json
import uuid
from dataclasses import dataclass
from typing import Any

import pytest

from app.artifacts.store import ArtifactStore, make_client
from app.demo.documents import build_documents
from app.demo.generator import DemoSummary, generate_demo
from app.demo.rows import NODE_LABELS, Rows
from app.demo.shapes import build_plan
from app.domain.constraints import SNAPSHOT_FIELD
from app.domain.kernel.errors import Conflict
from app.domain.kernel.principal import Principal
from app.domain.keys import ensure_client
from app.graph.identifiers import cypher_label
from app.model.enums import Role
from app.runtime import connected
from app.settings import Settings

PLAN_EDGES = "DEPENDS_ON|PRODUCES|REFINES|REQUIRES_APPROVAL|SCHEDULED_FOR"


@dataclass
class Generated:
    client_id: str
    summary: DemoSummary
    store: ArtifactStore


def _generate(
    settings: Settings,
    *,
    artifacts: bool,
    seed: int = 7,
    client: str | None = None,
    plans: int = 2,
) -> Generated:
    store = ArtifactStore(make_client(settings), bucket=settings.s3_bucket)

    async def scenario() -> Generated:
        async with connected(settings) as graph:
            name = client or f"demo-{uuid.uuid4().hex[:12]}"
            client_id = await ensure_client(graph, name=name)
            await store.ensure_bucket()
            summary = await generate_demo(
                graph,
                store if artifacts else None,
                client_id=client_id,
                plans=plans,
                seed=seed,
                progress=False,
                bucket=settings.s3_bucket,
            )
            return Generated(client_id, summary, store)

    return asyncio.run(scenario())


@pytest.fixture(scope="module")
def generated(settings: Settings) -> Generated:
    return _generate(settings, artifacts=True)


@pytest.fixture(scope="module")
def weeks(settings: Settings) -> Generated:
    """Ten weeks of plans: documents edited between approvals."""
    return _generate(settings, artifacts=False, plans=30)


def _rows(session: Any, query: str, **params: Any) -> list[dict[str, Any]]:
    return [record.data() for record in session.run(query, params)]


def test_counts_match_the_summary(generated: Generated, neo4j_session: Any) -> None:
    c = generated.client_id
    summary = generated.summary
    for label in NODE_LABELS:
        query = f"MATCH (n:{cypher_label(label)} {{client_id: $c}}) RETURN count(n) AS n"
        assert _rows(neo4j_session, query, c=c)[0]["n"] == summary.nodes_by_label[label], label
    assert summary.nodes_by_label["Plan"] == 2 and summary.nodes_by_label["PlanNode"] == 50
    assert summary.nodes_by_label["AssetVariant"] == 48
    rels = _rows(
        neo4j_session,
        "MATCH (a {client_id: $c})-[r]->() WHERE NOT a:Client RETURN count(r) AS n",
        c=c,
    )
    assert rels[0]["n"] == summary.relationships
    # No relationship leaves the client, and every node carries its client_id.
    crossing = _rows(
        neo4j_session,
        "MATCH (a {client_id: $c})-[r]-(b) WHERE b.client_id IS NULL OR b.client_id <> $c "
        "RETURN count(r) AS n",
        c=c,
    )
    assert crossing[0]["n"] == 0


def test_every_relationship_kind_links_what_its_id_properties_say(
    generated: Generated, neo4j_session: Any
) -> None:
    n = generated.summary.nodes_by_label
    expected = {
        "HAS_NODE": n["PlanNode"],
        "CONSTRAINED_BY": n["ConstraintsSnapshot"],
        "FROM_BLUEPRINT": n["Asset"],
        "HAS_VARIANT": n["AssetVariant"],
        "GENERATED": n["Asset"] + n["AssetVariant"],
        "APPROVES": n["ApprovalRecord"],
        "FOR_PLAN": n["PublishPackage"],
        "INCLUDES": n["AssetVariant"],
        "HAS_RUN": n["PublishRun"],
        "HAS_EVIDENCE": n["EvidenceArtifact"],
        "HAS_VERSION": n["ConstraintVersion"],
        "CURRENT_VERSION": n["ConstraintDocument"],
        "HAS_FACT": n["KnowledgeFact"],
        "INTRODUCED": n["KnowledgeFact"],
        "FREEZES": len(SNAPSHOT_FIELD) * n["ConstraintsSnapshot"],
    }
    found = _rows(
        neo4j_session,
        "MATCH (a {client_id: $c})-[r]->() WHERE NOT a:Client RETURN type(r) AS t, count(r) AS n",
        c=generated.client_id,
    )
    counts = {row["t"]: row["n"] for row in found}
    assert {t: counts.get(t) for t in expected} == expected
    assert n["ApprovalRecord"] == n["AssetVariant"] == 2 * n["Asset"] == 2 * n["PromptArtifact"]
    # Each id property names the node at the other end of its relationship.
    mismatched = _rows(
        neo4j_session,
        "MATCH (a:Asset {client_id: $c})-[:HAS_VARIANT]->(v) WHERE v.asset_id <> a.id "
        "RETURN 'variant' AS what UNION ALL "
        "MATCH (a:Asset {client_id: $c})-[:FROM_BLUEPRINT]->(b) "
        "WHERE a.source_blueprint_instance_id <> b.id OR b.node_type <> 'blueprint_instance' "
        "RETURN 'asset' AS what UNION ALL "
        "MATCH (r:ApprovalRecord {client_id: $c})-[:APPROVES]->(v) "
        "WHERE r.variant_id <> v.id OR r.asset_id <> v.asset_id "
        "RETURN 'approval' AS what UNION ALL "
        "MATCH (k:PublishPackage {client_id: $c})-[:FOR_PLAN]->(p) WHERE k.plan_id <> p.id "
        "OR size(k.variant_ids) <> COUNT { (k)-[:INCLUDES]->() } RETURN 'package' AS what "
        "UNION ALL MATCH (k:PublishPackage {client_id: $c})-[:HAS_RUN]->(r)-[:HAS_EVIDENCE]->(e) "
        "WHERE r.package_id <> k.id OR e.run_id <> r.id RETURN 'run' AS what",
        c=generated.client_id,
    )
    assert mismatched == []


def test_plan_graphs_are_acyclic_dags_of_the_expected_shape(
    generated: Generated, neo4j_session: Any
) -> None:
    c = generated.client_id
    cycles = _rows(
        neo4j_session,
        f"MATCH p=(n:PlanNode {{client_id: $c}})-[:{PLAN_EDGES}*]->(n) RETURN count(p) AS n",
        c=c,
    )
    assert cycles[0]["n"] == 0
    shape = _rows(
        neo4j_session,
        "MATCH (p:Plan {client_id: $c})-[:HAS_NODE]->(n:PlanNode) "
        "RETURN p.id AS plan, n.node_type AS type, count(n) AS n ORDER BY plan, type",
        c=c,
    )
    per_plan = {
        "approval_gate": 2,
        "blueprint_instance": 6,
        "campaign": 2,
        "objective": 1,
        "post_intent": 12,
        "publish_job": 2,
    }
    assert len(shape) == 2 * len(per_plan)
    assert all(row["n"] == per_plan[row["type"]] for row in shape)
    edges = _rows(
        neo4j_session,
        f"MATCH (a:PlanNode {{client_id: $c}})-[r:{PLAN_EDGES}]->(b:PlanNode) "
        "WITH r, a, b, r.edge_id IS NOT NULL AND r.plan_id = a.plan_id = b.plan_id "
        "AND r.client_id = $c AND valueType(r.created_at) STARTS WITH 'ZONED DATETIME' AS ok "
        "RETURN type(r) AS type, a.node_type AS a, b.node_type AS b, count(r) AS n, "
        "all(x IN collect(ok) WHERE x) AS complete",
        c=c,
    )
    found = {(row["type"], row["a"], row["b"]): row["n"] for row in edges}
    assert found == {
        ("DEPENDS_ON", "campaign", "objective"): 4,
        ("DEPENDS_ON", "blueprint_instance", "campaign"): 12,
        ("DEPENDS_ON", "publish_job", "approval_gate"): 4,
        ("PRODUCES", "blueprint_instance", "post_intent"): 24,
        ("REQUIRES_APPROVAL", "post_intent", "approval_gate"): 24,
        ("SCHEDULED_FOR", "post_intent", "publish_job"): 24,
    }
    assert all(row["complete"] for row in edges)


def test_statuses_snapshots_and_times_are_consistent(
    generated: Generated, neo4j_session: Any
) -> None:
    c = generated.client_id
    plans = _rows(
        neo4j_session,
        "MATCH (p:Plan {client_id: $c}) OPTIONAL MATCH (p)-[:CONSTRAINED_BY]->(s) "
        "RETURN p.status AS status, p.constraints_ref AS ref, s.id AS snapshot",
        c=c,
    )
    for plan in plans:
        frozen = plan["status"] in {"approved", "executing", "complete", "archived"}
        assert (plan["snapshot"] is not None) == frozen
        assert plan["ref"] == plan["snapshot"]
    assert {plan["status"] for plan in plans} & {"complete", "archived"}
    published = _rows(
        neo4j_session,
        "MATCH (k:PublishPackage {client_id: $c, status: 'published'})-[:INCLUDES]->(v) "
        "MATCH (v)<-[:APPROVES]-(a:ApprovalRecord) "
        "RETURN count(*) AS total, "
        "count(CASE WHEN v.status = 'published' AND a.status = 'approved' THEN 1 END) AS ok",
        c=c,
    )[0]
    assert published["total"] > 0 and published["ok"] == published["total"]
    outside = _rows(
        neo4j_session,
        "MATCH (p:Plan {client_id: $c})-[:HAS_NODE]->(:PlanNode)<-[:FROM_BLUEPRINT]-(a:Asset) "
        "MATCH (a)-[:HAS_VARIANT]->(v) "
        "WITH p, [a.created_at, a.updated_at, v.created_at, v.updated_at] AS times "
        "UNWIND times AS t WITH p, t "
        "WHERE NOT p.time_window_start <= t <= p.time_window_end RETURN count(t) AS n",
        c=c,
    )
    assert outside[0]["n"] == 0


def test_runs_have_evidence_stored_in_s3(generated: Generated, neo4j_session: Any) -> None:
    c = generated.client_id
    runs = _rows(
        neo4j_session,
        "MATCH (r:PublishRun {client_id: $c}) OPTIONAL MATCH (r)-[:HAS_EVIDENCE]->(e) "
        "RETURN r.id AS run, collect(e {.uri, .sha256, .size, .kind}) AS evidence",
        c=c,
    )
    assert runs and all(len(run["evidence"]) >= 1 for run in runs)
    prompts = _rows(
        neo4j_session,
        "MATCH (p:PromptArtifact {client_id: $c}) "
        "RETURN p {uri: p.prompt_text_uri, sha256: p.prompt_sha256, size: p.prompt_size} AS e",
        c=c,
    )
    objects = [e for run in runs for e in run["evidence"]] + [row["e"] for row in prompts]
    principal = Principal(client_id=c, role=Role.ANALYST, key_id="test")

    async def fetch() -> list[bytes]:
        return [await generated.store.get(principal, e["uri"]) for e in objects]

    for stored, data in zip(objects, asyncio.run(fetch()), strict=True):
        assert hashlib.sha256(data).hexdigest() == stored["sha256"] and len(data) == stored["size"]
    kinds = {e["kind"] for run in runs for e in run["evidence"]}
    assert kinds == {"screenshot", "log"}


def test_samples_point_at_published_content(generated: Generated, neo4j_session: Any) -> None:
    s = generated.summary.samples
    row = _rows(
        neo4j_session,
        "MATCH (p:Plan {id: $plan, client_id: $c})-[:HAS_NODE]->(b:PlanNode {id: $blueprint}) "
        "MATCH (k:PublishPackage {id: $package})-[:FOR_PLAN]->(p) "
        "MATCH (k)-[:INCLUDES]->(v:AssetVariant {id: $variant}) "
        "RETURN b.node_type AS type, k.status AS package, v.status AS variant",
        c=generated.client_id,
        plan=s.plan_id,
        blueprint=s.blueprint_node_id,
        package=s.package_id,
        variant=s.published_variant_id,
    )
    assert row == [{"type": "blueprint_instance", "package": "published", "variant": "published"}]


def test_same_seed_for_two_clients_does_not_collide(
    settings: Settings, generated: Generated, neo4j_session: Any
) -> None:
    other = _generate(settings, artifacts=False)
    query = (
        "MATCH (v:AssetVariant {client_id: $c}) WITH collect(v.checksum) AS sums "
        "MATCH (p:PromptArtifact {client_id: $c}) WITH sums, collect(p.prompt_sha256) AS prompts "
        "MATCH (n {client_id: $c}) WHERE NOT n:Client RETURN sums, prompts, collect(n.id) AS ids"
    )
    mine = _rows(neo4j_session, query, c=generated.client_id)[0]
    theirs = _rows(neo4j_session, query, c=other.client_id)[0]
    assert sorted(mine["sums"]) == sorted(theirs["sums"])  # unique per client only
    assert len(set(mine["sums"])) == 48
    assert sorted(mine["prompts"]) == sorted(theirs["prompts"])  # same texts, stored or not
    assert not set(mine["ids"]) & set(theirs["ids"])
    assert other.summary.nodes_by_label == generated.summary.nodes_by_label
    assert other.summary.uploads == 0
    prompt = _rows(
        neo4j_session,
        "MATCH (p:PromptArtifact {client_id: $c}) RETURN p.prompt_text_uri AS uri LIMIT 1",
        c=other.client_id,
    )[0]
    prefix = f"s3://{settings.s3_bucket}/client/{other.client_id}/prompts/"
    assert prompt["uri"].startswith(prefix)

    async def again() -> None:
        async with connected(settings) as graph:
            await generate_demo(
                graph, None, client_id=generated.client_id, plans=2, seed=7, progress=False
            )

    with pytest.raises(Conflict):
        asyncio.run(again())


def test_rows_are_deterministic_per_seed() -> None:
    def build(seed: int) -> Rows:
        rows = Rows()
        history = build_documents(rows, client_id="c", seed=seed, plans=3, existing=[])
        for index in range(3):
            build_plan(
                rows, client_id="c", bucket="b", seed=seed, index=index, plans=3, history=history
            )
        return rows

    first, second, other = build(7), build(7), build(8)
    assert first.nodes == second.nodes and first.rels == second.rels
    assert first.uploads == second.uploads
    assert first.nodes["Plan"] != other.nodes["Plan"]


def test_documents_have_versions_and_snapshots_freeze_the_ones_in_force(
    weeks: Generated, neo4j_session: Any
) -> None:
    c = weeks.client_id
    documents = _rows(
        neo4j_session,
        "MATCH (d:ConstraintDocument {client_id: $c})-[:HAS_VERSION]->(v) "
        "OPTIONAL MATCH (d)-[:CURRENT_VERSION]->(current) "
        "RETURN d.kind AS kind, count(v) AS versions, max(v.version) AS newest, "
        "d.current_version AS number, current.version AS current",
        c=c,
    )
    assert sorted(row["kind"] for row in documents) == sorted(k.value for k in SNAPSHOT_FIELD)
    assert all(row["versions"] > 1 for row in documents), documents
    assert all(row["newest"] == row["number"] == row["current"] for row in documents)
    fields = ", ".join(f"{kind.value}: s.{field}" for kind, field in SNAPSHOT_FIELD.items())
    snapshots = _rows(
        neo4j_session,
        "MATCH (p:Plan {client_id: $c})-[:CONSTRAINED_BY]->(s:ConstraintsSnapshot) "
        "OPTIONAL MATCH (s)-[:FREEZES]->(v:ConstraintVersion {client_id: $c}) "
        f"RETURN s.created_at AS at, {{{fields}}} AS named, "
        "collect(v {.id, .kind, .created_at}) AS frozen, "
        "COUNT { (s)-[:FREEZES]->() } AS freezes",
        c=c,
    )
    approved = _rows(
        neo4j_session,
        "MATCH (p:Plan {client_id: $c}) WHERE p.status IN "
        "['approved', 'executing', 'complete', 'archived'] RETURN count(p) AS n",
        c=c,
    )[0]["n"]
    assert approved > 0 and len(snapshots) == approved
    for snapshot in snapshots:
        assert snapshot["freezes"] == len(snapshot["frozen"]) == len(SNAPSHOT_FIELD)
        assert {v["kind"]: v["id"] for v in snapshot["frozen"]} == snapshot["named"]
        assert all(v["created_at"] <= snapshot["at"] for v in snapshot["frozen"])
    # Frozen: the newest version made before the snapshot, so a later one exists for plan 0.
    skipped = _rows(
        neo4j_session,
        "MATCH (s:ConstraintsSnapshot {client_id: $c})-[:FREEZES]->(v)"
        "<-[:HAS_VERSION]-(d)-[:HAS_VERSION]->(other) WHERE other.created_at <= s.created_at "
        "AND other.version > v.version RETURN count(*) AS n",
        c=c,
    )[0]["n"]
    newer = _rows(
        neo4j_session,
        "MATCH (:Plan {id: $plan, client_id: $c})-[:CONSTRAINED_BY]->()-[:FREEZES]->(f) "
        "WHERE EXISTS { (f)<-[:HAS_VERSION]-()-[:HAS_VERSION]->(n) WHERE n.version > f.version } "
        "RETURN count(f) AS n",
        c=c,
        plan=weeks.summary.samples.plan_id,
    )[0]["n"]
    assert (skipped, newer) == (0, len(SNAPSHOT_FIELD))
    # Snapshots of different weeks froze different versions.
    assert len({tuple(sorted(s["named"].values())) for s in snapshots}) > 1


def test_knowledge_facts_in_force_are_each_versions_facts(
    weeks: Generated, neo4j_session: Any
) -> None:
    """Facts at version n (from_version <= n < to_version) are exactly the facts of that
    version's content; each was introduced by the version it starts at."""
    versions = _rows(
        neo4j_session,
        "MATCH (:ConstraintDocument {client_id: $c, kind: 'knowledge_base'})-[:HAS_VERSION]->(v) "
        "RETURN v.version AS n, v.inline_content AS content, COLLECT { "
        "MATCH (f:KnowledgeFact {client_id: $c, document_id: v.document_id}) "
        "WHERE f.from_version <= v.version AND (f.to_version IS NULL OR f.to_version > v.version) "
        "RETURN [f.key, f.statement, (f.status = 'active') = (f.to_version IS NULL)] } AS facts",
        c=weeks.client_id,
    )
    assert len(versions) > 2
    for version in versions:
        wanted = sorted(
            [f["key"], f["statement"], True] for f in json.loads(version["content"])["facts"]
        )
        assert sorted(version["facts"]) == wanted, version["n"]
    unintroduced = _rows(
        neo4j_session,
        "MATCH (f:KnowledgeFact {client_id: $c}) WHERE NOT EXISTS { "
        "(v:ConstraintVersion {version: f.from_version})-[:INTRODUCED]->(f) } "
        "RETURN count(f) AS n",
        c=weeks.client_id,
    )
    assert unintroduced[0]["n"] == 0


def test_another_seed_freezes_the_documents_the_client_has(
    settings: Settings, neo4j_session: Any
) -> None:
    name = f"demo-{uuid.uuid4().hex[:12]}"
    first = _generate(settings, artifacts=False, client=name)
    second = _generate(settings, artifacts=False, seed=8, client=name)
    assert second.client_id == first.client_id
    assert second.summary.nodes_by_label["ConstraintVersion"] == 0
    found = _rows(
        neo4j_session,
        "MATCH (s:ConstraintsSnapshot {client_id: $c})-[:FREEZES]->(v) "
        "RETURN count(DISTINCT s) AS snapshots, count(v) AS frozen, "
        "COUNT { (:ConstraintDocument {client_id: $c}) } AS documents",
        c=first.client_id,
    )[0]
    made = sum(g.summary.nodes_by_label["ConstraintsSnapshot"] for g in (first, second))
    assert found == {"snapshots": made, "frozen": made * len(SNAPSHOT_FIELD), "documents": 5}
