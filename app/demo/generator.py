"""Demo data generator: a realistic home-services client (plans, plan graphs, assets, variants,
prompts, approvals, packages, runs, evidence, and the constraint documents whose versions the
approved plans froze) and its agent team's memory (the five agents, their episodes, engagement
events, performance metrics, lessons and MemoryLinks) for analysts, tests and benchmarks.

Rows are built in pure Python (app/demo/shapes.py and friends), deterministically from
the seed, in a thread while the previous batch's transaction runs. Each batch of plans is one
write transaction of UNWIND statements, one per label and per relationship kind. A batch's S3
objects are stored (by a pool of 8 threads) before its transaction starts, so no node ever
points at an object that is not there yet; they are stored while the previous batch's
transaction runs. A failed run keeps the batches it committed. The constraint documents and
the agents go with the first batch, before any snapshot that freezes their versions or episode
an agent ran. A plan's memory (memory.py) follows its plan in the same batch; its lessons may
link to lessons of earlier plans, committed by then.
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial

from app.artifacts.store import ArtifactStore, open_store
from app.demo.cypher import CREATE_NODES, CREATE_RELATIONSHIPS, FIND_PLAN, wire_rows
from app.demo.documents import EXISTING_VERSIONS, History, build_documents
from app.demo.episodes import MemoryState, build_agents
from app.demo.facts import PlanFacts
from app.demo.memory import EXISTING_AGENTS, MemorySamples, build_memory
from app.demo.memory_vocab import AGENTS, CREATOR
from app.demo.progress import ProgressLine
from app.demo.rows import NODE_LABELS, REL_KINDS, Rows, first_plan_id
from app.demo.shapes import PlanSamples, build_plan
from app.demo.summary import DemoSamples, DemoSummary, Tally
from app.demo.uploads import UPLOAD_WORKERS, upload_all
from app.domain.kernel.errors import Conflict
from app.domain.kernel.principal import Principal
from app.domain.keys import ensure_client
from app.graph.executor import GraphExecutor, Tx
from app.graph.migrations import migrate
from app.model.enums import Role
from app.runtime import connected
from app.settings import Settings

BATCH_PLANS = 25  # plans per transaction: ~2.7k nodes, ~4.4k relationships
DEFAULT_BUCKET = "agentmem"


async def generate_demo(
    graph: GraphExecutor,
    artifacts: ArtifactStore | None,
    *,
    client_id: str,
    plans: int,
    seed: int = 7,
    progress: bool = True,
    batch_plans: int = BATCH_PLANS,
    bucket: str = DEFAULT_BUCKET,
) -> DemoSummary:
    """Write `plans` demo plans for the client. Without `artifacts` nothing goes to S3, but
    prompts and evidence still carry the uri, sha256 and size the upload would have had
    (in `bucket`). The same client and seed twice is a CONFLICT: the ids would collide."""
    if plans < 1 or batch_plans < 1:
        raise ValueError("plans and batch_plans must be at least 1")
    first_id = first_plan_id(client_id=client_id, seed=seed)
    existing = await graph.read(FIND_PLAN, {"id": first_id, "client_id": client_id})
    if existing:
        raise Conflict(f"this client already has demo data for seed {seed}; use another seed")
    bucket = artifacts.bucket if artifacts is not None else bucket
    documents = Rows()
    versions = await graph.read_plain(EXISTING_VERSIONS, {"client_id": client_id})
    history = build_documents(
        documents, client_id=client_id, seed=seed, plans=plans, existing=versions
    )
    found = await graph.read_plain(EXISTING_AGENTS, {"client_id": client_id, "names": [*AGENTS]})
    agents = {row["name"]: row["id"] for row in found}
    state = MemoryState(
        build_agents(documents, client_id=client_id, seed=seed, plans=plans, existing=agents)
    )
    principal = Principal(client_id=client_id, role=Role.ADMIN, key_id="demo-generator")
    tally = Tally(dict.fromkeys(NODE_LABELS, 0), bar=ProgressLine(total=plans, enabled=progress))
    builder = _Builder(client_id, bucket, seed, plans, history, state)
    first: tuple[PlanFacts, MemorySamples] | None = None
    writing: asyncio.Task[None] | None = None
    with ThreadPoolExecutor(UPLOAD_WORKERS, thread_name_prefix="demo-s3") as pool:
        try:
            for start in range(0, plans, batch_plans):
                rows, stop = documents if start == 0 else Rows(), min(plans, start + batch_plans)
                # In a thread, so that the previous batch's transaction goes on meanwhile.
                built = await asyncio.to_thread(builder.batch, rows, range(start, stop))
                first = first or built
                if artifacts is not None:  # while the previous batch is being written
                    began = time.perf_counter()
                    await upload_all(pool, artifacts, principal=principal, items=rows.uploads)
                    tally.uploaded(len(rows.uploads), seconds=time.perf_counter() - began)
                if writing is not None:
                    await writing
                writing = asyncio.create_task(
                    _commit(graph, rows=rows, client_id=client_id, tally=tally, done=stop)
                )
            if writing is not None:
                await writing
        finally:
            if writing is not None and not writing.done():
                writing.cancel()
    tally.bar.finish()
    if first is None:
        raise RuntimeError("no plan was built")
    samples = _samples(*first)
    return DemoSummary(
        client_id=client_id,
        plans=plans,
        nodes_by_label=tally.counts,
        relationships=tally.relationships,
        seconds=tally.bar.elapsed(),
        samples=samples,
        uploads=tally.uploads,
        upload_seconds=tally.upload_seconds,
        graph_seconds=tally.graph_seconds,
    )


@dataclass(frozen=True)
class _Builder:
    """Builds the batches' rows, one batch after the other (the memory of a plan follows the
    lessons of the plans before it)."""

    client_id: str
    bucket: str
    seed: int
    plans: int
    history: History
    state: MemoryState

    def batch(self, rows: Rows, indexes: range) -> tuple[PlanFacts, MemorySamples] | None:
        """Append the plans of `indexes` and their memory to `rows`; plan 0's facts and memory
        samples when it is among them."""
        first = None
        for index in indexes:
            plan = build_plan(
                rows,
                client_id=self.client_id,
                bucket=self.bucket,
                seed=self.seed,
                index=index,
                plans=self.plans,
                history=self.history,
            )
            memory = build_memory(
                rows,
                plan=plan,
                state=self.state,
                client_id=self.client_id,
                bucket=self.bucket,
                seed=self.seed,
            )
            if index == 0:
                first = (plan, memory)
        return first


def _samples(plan: PlanFacts, memory: MemorySamples) -> DemoSamples:
    """Ids from plan 0, always complete or archived (stages.py), so it has published content,
    a failed engagement event and a revised lesson (episodes.py)."""
    ids = PlanSamples.of(plan)
    if ids.published_variant_id is None or memory.lesson_id is None:
        raise RuntimeError("plan 0 must have published content and lessons")
    if memory.failed_event_id is None:
        raise RuntimeError("plan 0 must have a failed engagement event")
    published = plan.campaigns[0].blueprints[0].assets[0].variants[0]
    return DemoSamples(
        plan_id=ids.plan_id,
        blueprint_node_id=ids.blueprint_node_id,
        package_id=ids.package_id,
        published_variant_id=ids.published_variant_id,
        episode_id=memory.root_episode_id,
        lesson_id=memory.lesson_id,
        failed_event_id=memory.failed_event_id,
        agent_name=CREATOR,
        platform=published.platform.value,
    )


async def run_demo(
    settings: Settings,
    *,
    client: str,
    plans: int,
    seed: int = 7,
    with_artifacts: bool = True,
    progress: bool = True,
) -> DemoSummary:
    """What `agentmem demo` runs: migrate, ensure the client by name, generate."""
    async with connected(settings) as graph:
        await migrate(graph)
        client_id = await ensure_client(graph, name=client)
        artifacts = None
        if with_artifacts:
            artifacts = open_store(settings)
            await artifacts.ensure_bucket()
        return await generate_demo(
            graph,
            artifacts,
            client_id=client_id,
            plans=plans,
            seed=seed,
            progress=progress,
            bucket=settings.s3_bucket,
        )


async def _commit(
    graph: GraphExecutor, *, rows: Rows, client_id: str, tally: Tally, done: int
) -> None:
    began = time.perf_counter()
    await graph.in_transaction(partial(_write, rows=rows, client_id=client_id))
    tally.written(rows, seconds=time.perf_counter() - began, done=done)


async def _write(tx: Tx, *, rows: Rows, client_id: str) -> None:
    """Every node of the batch, then every relationship; a missing endpoint rolls it all back."""
    statements = [(CREATE_NODES[label], rows.nodes.get(label)) for label in NODE_LABELS]
    statements += [(CREATE_RELATIONSHIPS[name], rows.rels.get(name)) for name in REL_KINDS]
    for statement, batch in statements:
        if not batch:
            continue
        result = await tx.run(statement, {"rows": wire_rows(batch), "client_id": client_id})
        if result[0]["created"] != len(batch):
            raise RuntimeError(f"demo batch wrote {result[0]['created']} of {len(batch)} rows")
