"""A small, complete plan → asset → publish graph for one client, written with plain Cypher so
that read tests do not depend on the mutations under test."""

from __future__ import annotations

import uuid
from typing import Any

SEED = """
CREATE (pl:Plan {id: $ids.plan, client_id: $c, name: 'Feb Week 1', status: 'approved',
                 created_by: 'agent', objective_tags: ['leadgen'], target_platforms: ['ig'],
                 created_at: datetime(), updated_at: datetime(), constraints_ref: $ids.snapshot})
CREATE (pl)-[:CONSTRAINED_BY]->(s:ConstraintsSnapshot {id: $ids.snapshot, client_id: $c,
        brandkit_version_id: $ids.brandkit, kb_version_id: 'kb-3', policies_version_id: 'po-2',
        provider_config_version_id: 'pc-1', blueprint_set_version_id: 'bs-9',
        created_at: datetime(), updated_at: datetime()})
// One frozen document version, without its document: a client has one document per kind,
// and a test may seed this graph twice (the other ids are what snapshots held before issue 14).
CREATE (s)-[:FREEZES]->(bk:ConstraintVersion {id: $ids.brandkit, client_id: $c,
        document_id: $ids.brandkit_document, kind: 'brandkit', version: 1, title: 'Brand',
        inline_content: '{"name":"Acme"}', content_sha256: 'seeded', content_size: 15,
        author: 'seed', reason: 'seeded', created_at: datetime(), updated_at: datetime()})
WITH pl
UNWIND $nodes AS node
CREATE (pl)-[:HAS_NODE]->(n:PlanNode)
SET n = node, n.client_id = $c, n.plan_id = $ids.plan, n.status = 'ready',
    n.created_at = datetime() + duration({seconds: node.order}), n.updated_at = datetime()
WITH count(*) AS made
MATCH (o:PlanNode {id: $ids.objective}), (ca:PlanNode {id: $ids.campaign}),
      (b:PlanNode {id: $ids.blueprint}), (pi:PlanNode {id: $ids.post})
CREATE (ca)-[:DEPENDS_ON {edge_id: randomUUID()}]->(o),
       (b)-[:DEPENDS_ON {edge_id: randomUUID()}]->(ca),
       (b)-[:PRODUCES {edge_id: randomUUID()}]->(pi)
CREATE (a:Asset {id: $ids.asset, client_id: $c, asset_type: 'reel', status: 'published',
                 title: 'Pressure reel', created_by: 'agent',
                 source_blueprint_instance_id: $ids.blueprint,
                 created_at: datetime(), updated_at: datetime()})-[:FROM_BLUEPRINT]->(b)
CREATE (a)-[:HAS_VARIANT]->(v:AssetVariant {id: $ids.variant, client_id: $c, asset_id: $ids.asset,
        platform: 'ig', format: 'reel', checksum: $ids.variant, status: 'published',
        created_at: datetime(), updated_at: datetime()})
CREATE (a)-[:HAS_VARIANT]->(:AssetVariant {id: $ids.variant2, client_id: $c, asset_id: $ids.asset,
        platform: 'fb', format: 'feed_post', checksum: $ids.variant2, status: 'failed',
        created_at: datetime() + duration({seconds: 1}), updated_at: datetime()})
CREATE (:PromptArtifact {id: $ids.prompt, client_id: $c, task_class: 'video.gen', provider: 'p',
        model: 'm', prompt_text_uri: 's3://b/k', prompt_sha256: 'x', prompt_size: 1,
        created_at: datetime(), updated_at: datetime()})-[:GENERATED]->(a)
CREATE (:ApprovalRecord {id: $ids.approval, client_id: $c, variant_id: $ids.variant,
        required_by_policy: true, status: 'approved', reviewer_user_id: 'rev-1',
        created_at: datetime(), updated_at: datetime()})-[:APPROVES]->(v)
CREATE (pk:PublishPackage {id: $ids.package, client_id: $c, plan_id: $ids.plan,
        status: 'published', variant_ids: [$ids.variant],
        created_at: datetime(), updated_at: datetime()})-[:INCLUDES]->(v)
CREATE (pk)-[:FOR_PLAN]->(pl)
CREATE (pk)-[:HAS_RUN]->(r:PublishRun {id: $ids.run, client_id: $c, package_id: $ids.package,
        platform: 'ig', status: 'succeeded', created_at: datetime(), updated_at: datetime()})
CREATE (r)-[:HAS_EVIDENCE]->(:EvidenceArtifact {id: $ids.evidence, client_id: $c, run_id: $ids.run,
        kind: 'screenshot', uri: 's3://b/e.png', sha256: 'y', size: 1, content_type: 'image/png',
        created_at: datetime(), updated_at: datetime()})
"""
NAMES = [
    "plan",
    "snapshot",
    "brandkit",
    "brandkit_document",
    "objective",
    "campaign",
    "blueprint",
    "post",
    "asset",
    "variant",
    "variant2",
    "prompt",
    "approval",
    "package",
    "run",
    "evidence",
]


def seed_graph(session: Any, client_id: str) -> dict[str, str]:
    ids = {name: str(uuid.uuid4()) for name in NAMES}
    kinds = [
        ("objective", "objective"),
        ("campaign", "campaign"),
        ("blueprint", "blueprint_instance"),
        ("post", "post_intent"),
    ]
    nodes = [
        {"id": ids[key], "node_type": kind, "title": key.title(), "order": order}
        for order, (key, kind) in enumerate(kinds)
    ]
    session.run(SEED, ids=ids, c=client_id, nodes=nodes).consume()
    return ids
