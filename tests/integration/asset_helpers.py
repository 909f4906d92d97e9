"""GraphQL documents and graph helpers for the asset graph and publishing tests."""

from __future__ import annotations

import asyncio
import base64
import uuid
from typing import Any

from app.api.edge.key_cache import USAGE_PROPERTIES
from app.artifacts.store import ArtifactStore, make_client
from app.cli.admin import create_key
from app.domain.kernel.principal import Principal
from app.model.enums import Role
from app.model.search_index import INDEX_PROPERTIES, SEARCHABLE_LABEL
from app.settings import Settings
from tests.integration.conftest import Caller

MISSING_ID = "00000000-0000-4000-8000-000000000000"
ASSET = "id assetType sourceBlueprintInstanceId status title summary primaryArtifactUri createdBy"
VARIANT = "id assetId platform format dimensions durationSeconds captionText artifactUri checksum "
VARIANT += "status"
PROMPT = "id taskClass provider model params promptTextUri promptSha256 promptSize inputRefs "
PROMPT += "outputRefs"
APPROVAL = "id assetId variantId requiredByPolicy status reviewerUserId notes evidenceUri"
PACKAGE = "id planId targetPlatforms variantIds scheduledAt status"
RUN = "id packageId platform status externalRef error finishedAt"
EVIDENCE = "id runId kind uri sha256 size contentType"


def _mutation(name: str, args: str, fields: str) -> str:
    params = ", ".join(f"${a.split(':')[0]}: {a.split(':')[1]}" for a in args.split())
    call = ", ".join(f"{a.split(':')[0]}: ${a.split(':')[0]}" for a in args.split())
    return f"mutation({params}) {{ {name}({call}) {{ {fields} }} }}"


CREATE_PLAN = "mutation($input: CreatePlanInput!) { createPlan(input: $input) { id } }"
CREATE_ASSET = _mutation("createAsset", "input:CreateAssetInput!", ASSET)
UPDATE_ASSET = _mutation("updateAsset", "id:ID! input:UpdateAssetInput!", ASSET)
TRANSITION_ASSET = _mutation("transitionAsset", "id:ID! to:AssetStatus!", ASSET)
CREATE_VARIANT = _mutation(
    "createAssetVariant", "input:CreateAssetVariantInput!", f"variant {{ {VARIANT} }} deduplicated"
)
UPDATE_VARIANT = _mutation("updateAssetVariant", "id:ID! input:UpdateAssetVariantInput!", VARIANT)
TRANSITION_VARIANT = _mutation("transitionAssetVariant", "id:ID! to:VariantStatus!", VARIANT)
CREATE_PROMPT = _mutation(
    "createPromptArtifact",
    "input:CreatePromptArtifactInput!",
    PROMPT + " promptText promptTextUrl",
)
CREATE_APPROVAL = _mutation("createApprovalRecord", "input:CreateApprovalRecordInput!", APPROVAL)
DECIDE = _mutation("decideApproval", "id:ID! input:DecideApprovalInput!", APPROVAL)
CREATE_PACKAGE = _mutation("createPublishPackage", "input:CreatePublishPackageInput!", PACKAGE)
UPDATE_PACKAGE = _mutation(
    "updatePublishPackage", "id:ID! input:UpdatePublishPackageInput!", PACKAGE
)
TRANSITION_PACKAGE = _mutation("transitionPublishPackage", "id:ID! to:PackageStatus!", PACKAGE)
START_RUN = _mutation("startPublishRun", "input:StartPublishRunInput!", RUN)
FINISH_RUN = _mutation("finishPublishRun", "id:ID! input:FinishPublishRunInput!", RUN)
ADD_EVIDENCE = _mutation("addPublishEvidence", "input:AddPublishEvidenceInput!", EVIDENCE)

# Every node of one client with its properties and outgoing relationships, in a stable order.
# The change feed's own nodes carry the client too; they record writes, they are not written.
OUTSIDE_FEED = "NOT n:Change AND NOT n:ChangeFeed"
SNAPSHOT = f"""
MATCH (n {{client_id: $client_id}}) WHERE {OUTSIDE_FEED}
OPTIONAL MATCH (n)-[r]->(m)
WITH n, r, m ORDER BY type(r), m.id
WITH n, collect([type(r), m.id]) AS rels
RETURN labels(n) AS labels, properties(n) AS props, rels
ORDER BY n.id
"""
PLAN_NODE = """
MATCH (p:Plan {id: $plan_id, client_id: $client_id})
CREATE (p)-[:HAS_NODE]->(n:PlanNode {
  id: $id, client_id: $client_id, plan_id: $plan_id, node_type: 'blueprint_instance',
  title: 'Reel blueprint', status: 'pending', created_at: datetime(), updated_at: datetime()
})
RETURN n.id AS id
"""


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def error_code(body: dict[str, Any]) -> str:
    assert body.get("errors"), f"expected an error, got {body}"
    return str(body["errors"][0]["extensions"]["code"])


def own_state(labels: list[str], props: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """A node without what the embedding worker adds in the background (it may run between
    two snapshots), nor an API key's last use (written off the request path)."""
    kept = {k: v for k, v in props.items() if k not in INDEX_PROPERTIES | USAGE_PROPERTIES}
    return [label for label in labels if label != SEARCHABLE_LABEL], kept


def snapshot(session: Any, client_id: str) -> list[Any]:
    rows = session.run(SNAPSHOT, client_id=client_id)
    return [(*own_state(r["labels"], r["props"]), r["rels"]) for r in rows]


def count(session: Any, query: str, **params: Any) -> int:
    return int(session.run(query, **params).single()[0])


def create_plan(caller: Caller) -> str:
    plan = {"name": "Feb Week 1", "createdBy": "AGENT", "targetPlatforms": ["IG", "TIKTOK"]}
    return str(caller.data(CREATE_PLAN, {"input": plan})["createPlan"]["id"])


def create_plan_node(session: Any, caller: Caller, plan_id: str) -> str:
    params = {"plan_id": plan_id, "client_id": caller.client_id, "id": str(uuid.uuid4())}
    return str(session.run(PLAN_NODE, **params).single()["id"])


def create_asset(caller: Caller, **overrides: Any) -> dict[str, Any]:
    fields = {"assetType": "REEL", "title": "Spring offer reel", "createdBy": "AGENT"}
    return dict(caller.data(CREATE_ASSET, {"input": fields | overrides})["createAsset"])


def create_variant(caller: Caller, asset_id: str, **overrides: Any) -> dict[str, Any]:
    """The created variant's fields, with the payload's `deduplicated` beside them."""
    fields = {"assetId": asset_id, "platform": "IG", "format": "REEL"}
    payload = caller.data(CREATE_VARIANT, {"input": fields | overrides})["createAssetVariant"]
    return dict(payload["variant"]) | {"deduplicated": payload["deduplicated"]}


def same_client_caller(settings: Settings, session: Any, caller: Caller, role: Role) -> Caller:
    """Another key of the caller's client, with another role."""
    name = session.run(
        "MATCH (c:Client {id: $id}) RETURN c.name AS name", id=caller.client_id
    ).single()["name"]
    issued = asyncio.run(create_key(settings, client=name, role=role, agent_name="reviewer-1"))
    return Caller(http=caller.http, key=issued.secret, client_id=caller.client_id)


def store_for(settings: Settings, *, bucket: str | None = None) -> ArtifactStore:
    return ArtifactStore(make_client(settings), bucket=bucket or settings.s3_bucket)


def principal_of(caller: Caller, role: Role = Role.AGENT) -> Principal:
    return Principal(client_id=caller.client_id, role=role, key_id=str(uuid.uuid4()))
