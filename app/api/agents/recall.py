"""recallForAgent (seed 001 workflow step 4): an agent's memories and recent action results as
one ranked answer (app/domain/agents/recall.py)."""

from __future__ import annotations

import strawberry

from app.api.context import Info
from app.api.inputs import input_arguments
from app.api.memory.inputs import MemoryWhere
from app.api.read.records import load_records
from app.api.read.selection import selected, under
from app.api.resolve import run
from app.api.search import inputs as _search_inputs  # noqa: F401 - registers SearchMode
from app.api.types.agent_memory import AgentCycle
from app.api.types.memory import MemoryRecord
from app.domain import agents
from app.domain.agents.recall_rules import RecallItem, RecallSource
from app.retrieval.search import SearchMode

strawberry.enum(RecallSource, description="Where an item of a recall comes from.")


@strawberry.input(
    description="What an agent (the API key's agent by default) recalls: its k memories best "
    "matching text (mode, where: the memory filters; the agent is agentName) and its "
    "recentResults newest action results (completed cycles)."
)
class AgentRecallInput:
    text: str
    agent_name: str | None = None
    mode: SearchMode = SearchMode.HYBRID
    k: int = strawberry.field(default=10, description="Memories, 1-50.")
    recent_results: int = strawberry.field(default=5, description="Action results, 0-50.")
    where: MemoryWhere | None = None


@strawberry.type(description="One item of a recall: a memory or an action result.")
class AgentRecallItem:
    rank: int = strawberry.field(description="1 for the best item.")
    source: RecallSource
    score: float = strawberry.field(
        description="Reciprocal rank fusion: 1 / (60 + the item's rank in its own list)."
    )
    why: list[str]
    record: MemoryRecord | None = strawberry.field(description="A memory, content hydrated.")
    search_score: float | None = strawberry.field(description="A memory's search score.")
    cycle: AgentCycle | None = strawberry.field(description="An action result: its cycle.")


@strawberry.type(
    description="An agent's memories (best match first) and recent action results (those "
    "holding most of the text's terms first, then newest), merged by rank into one list."
)
class AgentRecall:
    agent_name: str
    text: str
    items: list[AgentRecallItem]
    memory_count: int
    result_count: int


async def _items(info: Info, items: list[RecallItem]) -> list[AgentRecallItem]:
    # The records and cycles with what the caller selected under them: one more query each,
    # only when relationships are selected.
    fields = selected(info)
    records = iter(
        await load_records(
            info,
            MemoryRecord,
            [i.record for i in items if i.record],
            under(fields, "items", "record"),
        )
    )
    cycles = iter(
        await load_records(
            info, AgentCycle, [i.cycle for i in items if i.cycle], under(fields, "items", "cycle")
        )
    )
    return [
        AgentRecallItem(
            rank=rank,
            source=item.source,
            score=item.score,
            why=item.why,
            record=next(records) if item.record else None,
            search_score=item.search_score,
            cycle=next(cycles) if item.cycle else None,
        )
        for rank, item in enumerate(items, start=1)
    ]


@strawberry.type
class RecallQueries:
    @strawberry.field(
        description="Recall for an agent (seed 001 step 4): search its memories, hydrate them, "
        "and merge its recent action results into one ranked answer. NOT_FOUND when the "
        "client has no agent of that name."
    )
    async def recall_for_agent(self, info: Info, input: AgentRecallInput) -> AgentRecall:
        found = await run(info, agents.recall_for_agent, **input_arguments(input, "agent_name"))
        return AgentRecall(
            agent_name=found["agent_name"],
            text=found["text"],
            items=await _items(info, found["items"]),
            memory_count=found["memory_count"],
            result_count=found["result_count"],
        )
