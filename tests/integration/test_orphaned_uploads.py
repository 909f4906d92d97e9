"""An upload whose node write fails is removed (issue 11, finding 3): the real Neo4j and S3,
with the node write made to fail after the upload by deleting the record it links to in
between (detected only inside the write), and a hostile value through the API."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from app.artifacts.store import ArtifactStore, StoredArtifact, make_client
from app.domain.assets import approvals, prompts
from app.domain.kernel.errors import NotFound
from app.domain.kernel.principal import Principal
from app.model.enums import Role
from app.runtime import connected
from app.settings import Settings
from tests.integration.asset_helpers import CREATE_PROMPT, create_asset, principal_of
from tests.integration.conftest import Caller

DELETE_ASSET = "MATCH (a:Asset {id: $id}) DETACH DELETE a"


class DeletesAfterUpload(ArtifactStore):
    """The real store, which deletes the asset right after each upload: the write that follows
    finds its reference gone."""

    def __init__(self, settings: Settings, session: Any, asset_id: str) -> None:
        super().__init__(make_client(settings), bucket=settings.s3_bucket)
        self.session, self.asset_id = session, asset_id
        self.uploaded: list[str] = []

    async def put(
        self, principal: Principal, parts: tuple[str, ...], data: bytes, *, content_type: str
    ) -> StoredArtifact:
        stored = await super().put(principal, parts, data, content_type=content_type)
        self.uploaded.append(stored.key)
        self.session.run(DELETE_ASSET, id=self.asset_id).consume()
        return stored


def objects_of(settings: Settings, client_id: str) -> list[str]:
    prefix = f"client/{client_id}/"
    listed = make_client(settings).list_objects(settings.s3_bucket, prefix=prefix, recursive=True)
    return [str(item.object_name) for item in listed]


def test_a_prompt_whose_node_write_fails_leaves_no_object(
    settings: Settings, alice: Caller, neo4j_session: Any
) -> None:
    asset = create_asset(alice)
    store = DeletesAfterUpload(settings, neo4j_session, asset["id"])
    fields = {
        "task_class": "video.gen",
        "provider": "acme",
        "model": "reel-1",
        "output_refs": {"asset_ids": [asset["id"]]},
    }

    async def attempt() -> None:
        async with connected(settings) as graph:
            await prompts.create_prompt(
                graph, store, principal=principal_of(alice), fields=fields, prompt_text="a reel"
            )

    with pytest.raises(NotFound):
        asyncio.run(attempt())
    assert len(store.uploaded) == 1  # it was uploaded, then the transaction refused
    assert objects_of(settings, alice.client_id) == []


def test_approval_evidence_whose_node_write_fails_leaves_no_object(
    settings: Settings, alice: Caller, neo4j_session: Any
) -> None:
    asset = create_asset(alice)
    store = DeletesAfterUpload(settings, neo4j_session, asset["id"])
    fields = {"asset_id": asset["id"], "required_by_policy": True}

    async def attempt() -> None:
        async with connected(settings) as graph:
            await approvals.create_approval(
                graph,
                store,
                principal=principal_of(alice, Role.REVIEWER),
                fields=fields,
                evidence=b"screenshot",
                content_type="image/png",
            )

    with pytest.raises(NotFound):
        asyncio.run(attempt())
    assert len(store.uploaded) == 1
    assert objects_of(settings, alice.client_id) == []


def test_a_lone_surrogate_in_a_prompt_leaves_no_object_and_a_json_refusal(
    settings: Settings, api_url: str, alice: Caller
) -> None:
    asset = create_asset(alice)
    prompt = {
        "taskClass": "VIDEO_GEN",
        "provider": "x\ud800y",
        "model": "reel-1",
        "promptText": "a reel about tankless heaters",
        "outputRefs": {"assetIds": [asset["id"]]},
    }
    # json.dumps escapes the surrogate (\ud800), as a hostile client would send it
    body = json.dumps({"query": CREATE_PROMPT, "variables": {"input": prompt}})
    response = httpx.post(
        f"{api_url}/graphql",
        content=body,
        headers={"Authorization": f"Bearer {alice.key}", "Content-Type": "application/json"},
    )
    assert response.json()["errors"][0]["extensions"]["code"]
    assert objects_of(settings, alice.client_id) == []
