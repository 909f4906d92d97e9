"""The demo data generator against the real Neo4j and S3: counts, shape, isolation, collisions,
and the agent memory it writes read back through the API's traversals (episode tree, replay,
lessons from an agent on a platform, contradictions, causes of a failure, neighbourhood, metric
rollups)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from app.artifacts.store import ArtifactStore, make_client
from app.cli.admin import create_key
from app.demo.documents import build_documents
from app.demo.episodes import DEMO_NOW, MemoryState, build_agents
from app.demo.generator import DemoSummary, generate_demo
from app.demo.memory import build_memory
from app.demo.rows import NODE_LABELS, REL_KINDS, Rows
from app.demo.shapes import build_plan
from app.domain.constraints import SNAPSHOT_FIELD
from app.domain.kernel.errors import Conflict
from app.domain.kernel.principal import Principal
from app.domain.keys import ensure_client
from app.domain.lessons.links import link_props
from app.graph.identifiers import cypher_label
from app.graph.values import plain
from app.model.enums import Platform, Role
from app.runtime import connected
from app.settings import Settings
from tests.integration.conftest import Caller

PLAN_EDGES = "DEPENDS_ON|PRODUCES|REFINES|REQUIRES_APPROVAL|SCHEDULED_FOR"


@dataclass
class Generated:
    client_id: str
    summary: DemoSummary
    store: ArtifactStore
    name: str


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
            return Generated(client_id, summary, store, name)

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


def _analyst(settings: Settings, api_url: str, generated: Generated) -> Caller:
    """An analyst key of the generated client, calling the API over HTTP."""
    issued = asyncio.run(
        create_key(settings, client=generated.name, role=Role.ANALYST, agent_name=None)
    )
    assert issued.principal.client_id == generated.client_id
    http = httpx.Client(base_url=api_url, timeout=60)
    return Caller(http=http, key=issued.secret, client_id=generated.client_id)


@pytest.fixture(scope="module")
def analyst(settings: Settings, api_url: str, generated: Generated) -> Caller:
    return _analyst(settings, api_url, generated)


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
        "RAN": n["AgentEpisode"],
        "MEASURES": n["PerformanceMetric"],
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
        agents = build_agents(rows, client_id="c", seed=seed, plans=3, existing={})
        state = MemoryState(agents)
        for index in range(3):
            plan = build_plan(
                rows, client_id="c", bucket="b", seed=seed, index=index, plans=3, history=history
            )
            build_memory(rows, plan=plan, state=state, client_id="c", bucket="b", seed=seed)
        return rows

    first, second, other = build(7), build(7), build(8)
    assert first.nodes == second.nodes and first.rels == second.rels
    assert first.uploads == second.uploads
    assert first.nodes["Plan"] != other.nodes["Plan"]
    assert first.nodes["Lesson"] and first.nodes["Lesson"] != other.nodes["Lesson"]


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
    # The agents are the client's: the second seed's episodes were run by the first's agents.
    assert (first.summary.nodes_by_label["Agent"], second.summary.nodes_by_label["Agent"]) == (5, 0)
    ran = _rows(
        neo4j_session,
        "MATCH (a:Agent {client_id: $c}) "
        "RETURN a.name AS name, COUNT { (a)-[:RAN]->(:AgentEpisode) } AS episodes ORDER BY name",
        c=first.client_id,
    )
    episodes = sum(g.summary.nodes_by_label["AgentEpisode"] for g in (first, second))
    assert [row["name"] for row in ran] == ["analyst", "creator", "engager", "planner", "publisher"]
    assert sum(row["episodes"] for row in ran) == episodes


# --- The agent memory: agents, episodes, engagement, metrics, lessons and MemoryLinks --------

LINKS = "SUPPORTS|CONTRADICTS|CAUSED|DERIVED_FROM|VALIDATES"
TREE = """query($id: ID!) { episodeTree(id: $id, maxDepth: 5) { episode { id } root { id }
  pathToRoot { id } truncated descendants { depth hasChildren
  episode { id agentName parentEpisodeId status } } } }"""
REPLAY = """query($id: ID!) { replayEpisode(id: $id) { episode { id status } agent { name }
  parent { id } children { id agentName } inputRefs retrievalRefs
  reads { label role record { __typename ... on Lesson { id } ... on PlanNode { id } } }
  writes { label role record { __typename ... on PlanNode { id nodeType } } }
  snapshots { snapshot { id } plan { id } constraints { id kind } }
  log { uri sha256 toolCalls } } }"""
FROM_AGENT = """query($a: String!, $p: Platform!) {
  lessonsFromAgentOnPlatform(agentName: $a, platform: $p, first: 50) {
  agent { name } total lessons { lesson { id statement lessonType }
  derivedFrom { episode { id agentName } via assets { id } }
  evidenceMetrics { id } evidenceEpisodes { id } } } }"""
CONTRADICTIONS = """query($id: ID!) { contradictions(lessonId: $id) { lesson { id validTo }
  links { linkId relation direction author note other { id label title } }
  supersededBy { id } lessons { id } } }"""
CAUSES = """query($id: ID!) { episodesCausingFailure(engagementEventId: $id) {
  event { id result failureReason } failed
  episodes { episode { id } agent { name } via causedLinkIds } } }"""
NEIGHBOURHOOD = """query($id: ID!) { neighbourhood(id: $id, hops: 2, first: 200) {
  start { id label } records { distance record { id label title } }
  links { linkId relation fromId toId } } }"""
ROLLUP = """query($bucket: RollupBucket!) { metricRollup(groupBy: PLATFORM, bucket: $bucket,
  first: 1000) { key bucketStart metricType sum count } }"""


def test_agents_run_trees_of_closed_episodes(generated: Generated, neo4j_session: Any) -> None:
    c = generated.client_id
    agents = _rows(
        neo4j_session,
        "MATCH (a:Agent {client_id: $c}) RETURN a.name AS name ORDER BY name",
        c=c,
    )
    assert [a["name"] for a in agents] == ["analyst", "creator", "engager", "planner", "publisher"]
    episodes = _rows(
        neo4j_session,
        "MATCH (a:Agent {client_id: $c})-[:RAN]->(e:AgentEpisode) "
        "OPTIONAL MATCH (p:AgentEpisode)-[:SPAWNED]->(e) "
        "RETURN e {.*} AS e, a.name AS agent, p {.id, .agent_name, .created_at, .closed_at} AS p, "
        "COUNT { (:Agent)-[:RAN]->(e) } AS ran, COUNT { ()-[:SPAWNED]->(e) } AS parents",
        c=c,
    )
    assert len(episodes) == generated.summary.nodes_by_label["AgentEpisode"]
    spawned = {(row["p"]["agent_name"], row["agent"]) for row in episodes if row["p"] is not None}
    assert spawned == {("planner", "creator"), ("planner", "publisher"), ("publisher", "engager")}
    roots = sorted(row["agent"] for row in episodes if row["p"] is None)
    assert roots == ["analyst", "planner", "planner"]  # the draft plan has no analysis
    for row in episodes:
        e, parent = row["e"], row["p"]
        assert (row["ran"], e["agent_name"]) == (1, row["agent"])
        assert row["parents"] <= 1 and e.get("parent_episode_id") == (parent and parent["id"])
        assert e["status"] in {"success", "failed"} and e["created_at"] < e["closed_at"]
        assert e["updated_at"] == e["closed_at"]
        latency = (plain(e["closed_at"]) - plain(e["created_at"])).total_seconds()
        assert e["latency_ms"] == int(latency * 1000)
        assert e["tool_call_log_uri"].endswith(f"/episodes/{e['id']}/tool-call-log.jsonl")
        assert e["tool_call_count"] > 0 and e["tool_call_appends"] == 1
        assert json.loads(e["input_refs"])
        if parent is not None:  # spawned while the parent ran
            assert parent["created_at"] <= e["created_at"] <= parent["closed_at"]


def test_what_episodes_read_and_wrote_carries_a_role(
    generated: Generated, neo4j_session: Any
) -> None:
    found = _rows(
        neo4j_session,
        "MATCH (e:AgentEpisode {client_id: $c})-[r:READ|WROTE]->(n) "
        "RETURN e.agent_name AS agent, type(r) AS type, head(labels(n)) AS label, r.role AS role, "
        "count(*) AS n, all(x IN collect(size(keys(r)) = 2 AND r.role IS NOT NULL "
        "AND valueType(r.created_at) STARTS WITH 'ZONED DATETIME' AND n.client_id = $c "
        "AND e.created_at <= r.created_at <= e.closed_at) WHERE x) AS ok",
        c=generated.client_id,
    )
    kinds = {(row["agent"], row["type"], row["label"], row["role"]) for row in found}
    assert all(row["ok"] for row in found), found
    assert {
        ("planner", "WROTE", "PlanNode", "objective"),
        ("planner", "WROTE", "PlanNode", "campaign"),
        ("creator", "READ", "PlanNode", "blueprint"),
        ("creator", "WROTE", "Asset", "media"),
        ("creator", "WROTE", "Asset", "copy"),
        ("publisher", "READ", "PlanNode", "publish_job"),
        ("publisher", "READ", "Asset", "package_asset"),
        ("engager", "READ", "Asset", "post"),
        ("analyst", "WROTE", "Lesson", "what_worked"),
        ("analyst", "WROTE", "Lesson", "what_failed"),
    } <= kinds
    assert {k[2] for k in kinds if k[:2] == ("engager", "WROTE")} == {"EngagementEvent"}
    n = generated.summary.nodes_by_label
    counts = {}
    for row in found:
        counts[row["type"], row["label"]] = counts.get((row["type"], row["label"]), 0) + row["n"]
    assert counts["WROTE", "Asset"] == n["Asset"]
    assert counts["WROTE", "EngagementEvent"] == n["EngagementEvent"]
    assert counts["WROTE", "Lesson"] == n["Lesson"]


def test_memory_links_carry_the_properties_the_api_gives_them(
    weeks: Generated, neo4j_session: Any
) -> None:
    principal = Principal(weeks.client_id, Role.AGENT, key_id="k", agent_name="analyst")
    api = link_props(principal, note="n", now=datetime.now(UTC))
    expected = sorted(key for key, value in api.items() if value is not None)
    links = _rows(
        neo4j_session,
        f"MATCH (a {{client_id: $c}})-[r:{LINKS}]->(b) "
        "RETURN type(r) AS type, head(labels(a)) AS a, head(labels(b)) AS b, keys(r) AS keys, "
        "r {.*} AS r",
        c=weeks.client_id,
    )
    kinds = {(row["a"], row["type"], row["b"]) for row in links}
    assert kinds == {(k.source, k.rel_type, k.target) for k in REL_KINDS.values() if k.link}
    for row in links:
        r = row["r"]
        assert sorted(row["keys"]) == expected, row
        assert r["client_id"] == weeks.client_id and r["author"] == "agent:analyst"
        assert r["note"] and plain(r["created_at"]) < DEMO_NOW
    assert len({row["r"]["link_id"] for row in links}) == len(links)


def test_engagement_metrics_and_lessons_are_consistent(
    generated: Generated, neo4j_session: Any
) -> None:
    c = generated.client_id
    events = _rows(
        neo4j_session,
        "MATCH (e:EngagementEvent {client_id: $c})-[:CONCERNS]->(v:AssetVariant) "
        "OPTIONAL MATCH (e)-[:CONCERNS]->(r:PublishRun) "
        "RETURN e.result AS result, e.failure_reason AS reason, e.platform = v.platform AS same, "
        "v.status AS status, r IS NOT NULL AS run, e.variant_id = v.id "
        "AND coalesce(e.publish_run_id, '-') = coalesce(r.id, '-') "
        "AND coalesce(r.platform, e.platform) = e.platform AS ids, "
        "COUNT { (:AgentEpisode {agent_name: 'engager'})-[:WROTE]->(e) } AS writers, "
        "COUNT { (:AgentEpisode)-[:CAUSED]->(e) } AS causes",
        c=c,
    )
    assert len(events) == generated.summary.nodes_by_label["EngagementEvent"]
    assert {e["result"] for e in events} >= {"success", "fail"}
    for e in events:
        assert (e["reason"] is not None) == (e["result"] == "fail")
        assert (e["causes"] > 0) == (e["result"] == "fail")
        assert e["same"] and e["ids"] and e["writers"] == 1 and e["status"] == "published"
    assert any(e["run"] for e in events)
    metrics = _rows(
        neo4j_session,
        "MATCH (m:PerformanceMetric {client_id: $c}) OPTIONAL MATCH (m)-[:MEASURES]->(v) "
        "RETURN m {.*} AS m, collect(v {.id, .platform, .status}) AS measured",
        c=c,
    )
    assert len(metrics) == generated.summary.nodes_by_label["PerformanceMetric"] > 0
    assert {row["m"]["metric_type"] for row in metrics} == {"impressions", "saves"}
    for row in metrics:
        m, (v,) = row["m"], row["measured"]
        assert (m["variant_id"], m["platform"], v["status"]) == (
            v["id"],
            v["platform"],
            "published",
        )
        start, end = plain(m["window_start"]), plain(m["window_end"])
        assert start < end < DEMO_NOW and end < plain(m["created_at"])
    lessons = _rows(
        neo4j_session,
        "MATCH (l:Lesson {client_id: $c}) "
        "OPTIONAL MATCH (newer:Lesson)-[:SUPERSEDES]->(l) "
        "RETURN l {.*} AS l, newer.id AS newer, "
        "EXISTS { (newer)-[:CONTRADICTS]->(l) } AS contradicted, "
        "COLLECT { MATCH (l)-[:EVIDENCED_BY]->(x:PerformanceMetric) RETURN x.id } AS metrics, "
        "COLLECT { MATCH (l)-[:EVIDENCED_BY]->(x:AgentEpisode) RETURN x.id } AS episodes, "
        "COUNT { (l)-[:DERIVED_FROM]->(:AgentEpisode) } AS derived, "
        "COUNT { (:AgentEpisode {agent_name: 'analyst'})-[:WROTE]->(l) } AS writers",
        c=c,
    )
    assert len(lessons) == generated.summary.nodes_by_label["Lesson"]
    assert {row["l"]["lesson_type"] for row in lessons} == {"what_worked", "what_failed"}
    superseded = [row for row in lessons if row["newer"] is not None]
    assert superseded
    for row in lessons:
        lesson = row["l"]
        refs = json.loads(lesson["evidence_refs"])
        assert sorted(refs["metric_ids"]) == sorted(row["metrics"])
        assert sorted(refs["episode_ids"]) == sorted(row["episodes"])
        assert row["derived"] >= 1 and row["writers"] == 1
        assert lesson["valid_from"] == lesson["last_evidence_at"] == lesson["created_at"]
        assert lesson.get("superseded_by") == row["newer"]
        assert (lesson.get("valid_to") is not None) == (row["newer"] is not None)
        if row["newer"] is not None:
            assert row["contradicted"] and lesson["valid_to"] == lesson["updated_at"]


def test_episode_logs_are_stored_in_s3(generated: Generated, neo4j_session: Any) -> None:
    c = generated.client_id
    episode = _rows(
        neo4j_session,
        "MATCH (e:AgentEpisode {id: $id, client_id: $c}) RETURN e {.*} AS e, "
        "COLLECT { MATCH (e)-[:SPAWNED]->(x) RETURN x.id } AS children",
        c=c,
        id=generated.summary.samples.episode_id,
    )[0]
    e = episode["e"]
    principal = Principal(client_id=c, role=Role.ANALYST, key_id="test")
    data = asyncio.run(generated.store.get(principal, e["tool_call_log_uri"]))
    assert hashlib.sha256(data).hexdigest() == e["tool_call_log_sha256"]
    lines = [json.loads(line) for line in data.decode().splitlines()]
    assert lines[0]["kind"] == "episode" and lines[0]["episode_id"] == e["id"]
    assert sorted(x["episode_id"] for x in lines if x["kind"] == "spawned") == sorted(
        episode["children"]
    )
    calls = [x for x in lines if x["kind"] == "tool_call"]
    assert len(calls) == e["tool_call_count"] > 0
    assert lines[-1]["kind"] == "output" and lines[-1]["status"] == e["status"]


def test_episode_tree_and_replay_through_the_api(
    generated: Generated, analyst: Caller, neo4j_session: Any
) -> None:
    root = generated.summary.samples.episode_id
    below = _rows(
        neo4j_session,
        "MATCH (:AgentEpisode {id: $id})-[s:SPAWNED*]->(d) "
        "RETURN d.id AS id, size(s) AS depth, d.agent_name AS agent",
        id=root,
    )
    tree = analyst.data(TREE, {"id": root})["episodeTree"]
    assert tree["root"]["id"] == tree["episode"]["id"] == root and tree["pathToRoot"] == []
    found = {
        (d["episode"]["id"], d["depth"], d["episode"]["agentName"]) for d in tree["descendants"]
    }
    assert found == {(d["id"], d["depth"], d["agent"]) for d in below}
    assert {agent for _, depth, agent in found if depth == 1} == {"creator", "publisher"}
    publisher = next(d for d in tree["descendants"] if d["episode"]["agentName"] == "publisher")
    assert publisher["hasChildren"] and publisher["episode"]["parentEpisodeId"] == root

    replay = analyst.data(REPLAY, {"id": root})["replayEpisode"]
    assert replay["agent"]["name"] == "planner" and replay["parent"] is None
    children = {(d["episode"]["id"], d["episode"]["agentName"]) for d in tree["descendants"]}
    assert {(x["id"], x["agentName"]) for x in replay["children"]} <= children
    assert len(replay["children"]) == 2
    assert sorted(w["role"] for w in replay["writes"]) == ["campaign", "campaign", "objective"]
    assert {w["record"]["nodeType"] for w in replay["writes"]} == {"CAMPAIGN", "OBJECTIVE"}
    assert replay["inputRefs"]["plan_id"] == generated.summary.samples.plan_id
    (snapshot,) = replay["snapshots"]
    assert snapshot["plan"]["id"] == generated.summary.samples.plan_id
    assert len(snapshot["constraints"]) == len(SNAPSHOT_FIELD)
    assert replay["log"]["uri"] and replay["log"]["toolCalls"] > 0
    creator = next(x["id"] for x in replay["children"] if x["agentName"] == "creator")
    made = analyst.data(REPLAY, {"id": creator})["replayEpisode"]
    assert made["parent"]["id"] == root
    assert {r["role"] for r in made["reads"]} == {"blueprint"} and len(made["reads"]) == 6
    assert len(made["writes"]) == 12 and {w["label"] for w in made["writes"]} == {"Asset"}


def test_lessons_from_the_sampled_agent_on_its_platform(
    generated: Generated, analyst: Caller, neo4j_session: Any
) -> None:
    s = generated.summary.samples
    platform = Platform(s.platform)
    result = analyst.data(FROM_AGENT, {"a": s.agent_name, "p": platform.name})
    found = result["lessonsFromAgentOnPlatform"]
    expected = _rows(
        neo4j_session,
        "MATCH (:Agent {client_id: $c, name: $agent})-[:RAN]->(e)-[:READ|WROTE]->(:Asset)"
        "-[:HAS_VARIANT]->(:AssetVariant {platform: $platform, status: 'published'}) "
        "MATCH (l:Lesson)-[:DERIVED_FROM|EVIDENCED_BY]->(e) RETURN DISTINCT l.id AS id",
        c=generated.client_id,
        agent=s.agent_name,
        platform=s.platform,
    )
    assert found["agent"]["name"] == s.agent_name
    assert found["total"] == len(expected) == len(found["lessons"]) > 0
    assert {x["lesson"]["id"] for x in found["lessons"]} == {row["id"] for row in expected}
    for item in found["lessons"]:
        assert item["derivedFrom"] and item["evidenceMetrics"] + item["evidenceEpisodes"]
        for derived in item["derivedFrom"]:
            assert derived["episode"]["agentName"] == s.agent_name and derived["assets"]
    vias = {v for x in found["lessons"] for d in x["derivedFrom"] for v in d["via"]}
    assert vias == {"DERIVED_FROM", "EVIDENCED_BY"}
    # The planner read lessons and wrote plan nodes, never an asset: nothing to learn from.
    planner = analyst.data(FROM_AGENT, {"a": "planner", "p": platform.name})
    assert planner["lessonsFromAgentOnPlatform"]["total"] == 0


def test_contradictions_and_causes_of_the_samples(
    generated: Generated, analyst: Caller, neo4j_session: Any
) -> None:
    s = generated.summary.samples
    result = analyst.data(CONTRADICTIONS, {"id": s.lesson_id})["contradictions"]
    links = _rows(
        neo4j_session,
        "MATCH (l:Lesson {id: $id})-[r:CONTRADICTS]-(o) RETURN r.link_id AS id, o.id AS other",
        id=s.lesson_id,
    )
    assert result["lesson"]["id"] == s.lesson_id and result["lesson"]["validTo"]
    assert sorted(x["linkId"] for x in result["links"]) == sorted(row["id"] for row in links)
    assert result["links"] and {x["relation"] for x in result["links"]} == {"CONTRADICTS"}
    assert all(x["direction"] == "IN" and x["other"]["label"] == "Lesson" for x in result["links"])
    (newer,) = result["supersededBy"]
    assert newer["id"] in {x["id"] for x in result["lessons"]}
    assert {x["id"] for x in result["lessons"]} == {row["other"] for row in links}

    causes = analyst.data(CAUSES, {"id": s.failed_event_id})["episodesCausingFailure"]
    assert causes["failed"] and causes["event"]["failureReason"]
    caused = _rows(
        neo4j_session,
        "MATCH (e:AgentEpisode)-[r:CAUSED]->(:EngagementEvent {id: $id}) "
        "RETURN e.id AS episode, r.link_id AS link",
        id=s.failed_event_id,
    )
    assert caused
    by_episode = {x["episode"]["id"]: x for x in causes["episodes"]}
    for row in caused:
        assert "CAUSED" in by_episode[row["episode"]]["via"]
        assert by_episode[row["episode"]]["causedLinkIds"] == [row["link"]]
    writers = [x for x in causes["episodes"] if "WROTE" in x["via"]]
    assert [x["agent"]["name"] for x in writers] == ["engager"]


def test_neighbourhood_of_the_sampled_lesson(
    generated: Generated, analyst: Caller, neo4j_session: Any
) -> None:
    s = generated.summary.samples
    hood = analyst.data(NEIGHBOURHOOD, {"id": s.lesson_id})["neighbourhood"]
    near = _rows(
        neo4j_session,
        f"MATCH (:Lesson {{id: $id}})-[:{LINKS}]-(o) RETURN DISTINCT o.id AS id, "
        "head(labels(o)) AS label",
        id=s.lesson_id,
    )
    assert hood["start"] == {"id": s.lesson_id, "label": "Lesson"}
    first = {
        (r["record"]["id"], r["record"]["label"]) for r in hood["records"] if r["distance"] == 1
    }
    assert first == {(row["id"], row["label"]) for row in near}
    assert {"Lesson", "AgentEpisode", "Asset"} <= {label for _, label in first}
    assert any(r["distance"] == 2 for r in hood["records"])
    relations = {link["relation"] for link in hood["links"]}
    assert {"CONTRADICTS", "DERIVED_FROM", "VALIDATES"} <= relations
    assert all(r["record"]["title"] for r in hood["records"])


def _rollup_matches_the_metrics(caller: Caller, session: Any, client_id: str) -> None:
    rows = caller.data(ROLLUP, {"bucket": "NONE"})["metricRollup"]
    expected = _rows(
        session,
        "MATCH (m:PerformanceMetric {client_id: $c}) RETURN m.platform AS key, "
        "m.metric_type AS type, sum(m.value) AS sum, count(m) AS count",
        c=client_id,
    )
    assert rows and len(rows) == len(expected)
    found = {(r["key"], r["metricType"].lower()): (r["sum"], r["count"]) for r in rows}
    assert found == {(e["key"], e["type"]): (e["sum"], e["count"]) for e in expected}


def test_metric_rollup_by_platform_through_the_api(
    generated: Generated, analyst: Caller, neo4j_session: Any
) -> None:
    _rollup_matches_the_metrics(analyst, neo4j_session, generated.client_id)
    rows = analyst.data(ROLLUP, {"bucket": "DAY"})["metricRollup"]
    assert all(row["bucketStart"] for row in rows)


def test_metrics_spread_over_days_and_weeks(
    settings: Settings, api_url: str, weeks: Generated, neo4j_session: Any
) -> None:
    caller = _analyst(settings, api_url, weeks)
    _rollup_matches_the_metrics(caller, neo4j_session, weeks.client_id)
    days = caller.data(ROLLUP, {"bucket": "DAY"})["metricRollup"]
    by_week = caller.data(ROLLUP, {"bucket": "WEEK"})["metricRollup"]
    assert len({row["bucketStart"] for row in by_week}) >= 5
    assert len({row["bucketStart"] for row in days}) > len({row["bucketStart"] for row in by_week})
    assert all(datetime.fromisoformat(row["bucketStart"]) < DEMO_NOW for row in days)
