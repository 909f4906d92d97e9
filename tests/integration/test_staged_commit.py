"""Staged uploads settled by the write's real outcome (review O2 of issue 11), on the real
Neo4j and S3 servers: an idempotent create whose claim transaction fails after the staged block
ended leaves no object; a node write refused a connection (a real driver against a closed port)
certainly did not commit, so its object is removed at once; the reconciliation's reference
check (generated from the model) runs on the real graph and the reconciliation removes what no
node points at."""

from __future__ import annotations

import asyncio
import socket
import uuid
from typing import Any

import pytest
from neo4j import AsyncGraphDatabase

from app.artifacts.orphans import referenced_query
from app.artifacts.staged import staged_uploads
from app.artifacts.store import ArtifactStore, make_client
from app.domain.assets import prompts
from app.domain.kernel.errors import Unavailable
from app.domain.kernel.idempotency import run_once
from app.domain.kernel.principal import Principal
from app.graph.executor import GraphExecutor, Tx, driver_timeouts
from app.model.enums import Role
from app.runtime import connected
from app.settings import Settings
from tests.integration.conftest import Caller
from tests.integration.test_orphaned_uploads import objects_of

FIELDS = {"task_class": "video.gen", "provider": "acme", "model": "reel-1"}


def store_of(settings: Settings) -> ArtifactStore:
    return ArtifactStore(make_client(settings), bucket=settings.s3_bucket, retry_after_s=1)


def owner(caller: Caller) -> Principal:
    return Principal(client_id=caller.client_id, role=Role.AGENT, key_id=str(uuid.uuid4()))


def test_a_keyed_create_whose_claim_transaction_fails_after_the_upload_leaves_no_object(
    settings: Settings, alice: Caller
) -> None:
    store = store_of(settings)
    principal = owner(alice)

    async def create(graph: GraphExecutor) -> Any:
        prompt = await prompts.create_prompt(
            graph, store, principal=principal, fields=FIELDS, prompt_text="a reel"
        )
        # the staged block has ended; recording the result (in the same transaction) fails
        return {"prompt": prompt, "unstorable": object()}

    async def attempt() -> None:
        async with connected(settings) as graph:
            await run_once(
                graph,
                principal,
                key=str(uuid.uuid4()),
                operation="createPromptArtifact",
                request={"fields": FIELDS},
                create=create,
                retention_s=60,
            )

    with pytest.raises(TypeError):
        asyncio.run(attempt())
    assert objects_of(settings, alice.client_id) == []


def refusing_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("write", ["transaction", "auto-commit"])
def test_a_node_write_refused_a_connection_removes_its_upload_at_once(
    settings: Settings, alice: Caller, write: str
) -> None:
    store = store_of(settings)
    principal = owner(alice)

    async def work(tx: Tx) -> Any:
        return await tx.run("CREATE (n:NeverWritten) RETURN n")

    async def attempt() -> None:
        driver = AsyncGraphDatabase.driver(
            f"bolt://127.0.0.1:{refusing_port()}", auth=("neo4j", "x"), **driver_timeouts(1)
        )
        graph = GraphExecutor(driver, database="neo4j", timeout_s=1)
        try:
            async with staged_uploads(store, principal) as uploads:
                await uploads.put(("prompts", "p", "t.txt"), b"text", content_type="text/plain")
                if write == "transaction":
                    await graph.in_transaction(work)
                else:
                    await graph.write("CREATE (n:NeverWritten)")
        finally:
            await driver.close()

    with pytest.raises(Unavailable):
        asyncio.run(attempt())
    assert objects_of(settings, alice.client_id) == []
    assert store.orphans.pending == 0  # certainly not committed: nothing left to reconcile


def test_the_reconciliation_keeps_what_a_node_points_at_and_removes_the_rest(
    settings: Settings, alice: Caller
) -> None:
    store = store_of(settings)
    principal = owner(alice)
    store.orphans.grace_s = 0.0

    async def scenario() -> tuple[list[str], int]:
        async with connected(settings) as graph:
            prompt = await prompts.create_prompt(
                graph, store, principal=principal, fields=FIELDS, prompt_text="kept"
            )
            stray = await store.put(principal, ("stray.txt",), b"x", content_type="text/plain")
            uris = [prompt["prompt_text_uri"], stray.uri]
            params = {"client_id": alice.client_id, "uris": uris}
            referenced = (await graph.read(referenced_query(), params))[0]["uris"]
            store.orphans.add(alice.client_id, uris, reason="test")
            return referenced, await store.orphans.reconcile(graph, store)

    referenced, removed = asyncio.run(scenario())
    assert len(referenced) == 1 and referenced[0].endswith("prompt.txt")
    assert removed == 1
    assert [key.rsplit("/", 1)[-1] for key in objects_of(settings, alice.client_id)] == [
        "prompt.txt"
    ]
