"""The load benchmark's operation mix: what a client sends next, drawn from a seeded random
generator by fixed weights, with the documents and the variables each operation sends."""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.lineage import TRACE, UPSTREAM
from bench.memory_ops import RECALL, REMEMBER

AGENT = "load"
SUBJECTS = 20
HOT_QUERIES = 10  # a few questions asked over and over, the rest spread over the pool
HOT_SHARE = 0.3

READS = {
    "plan": "query($id: ID!) { plan(id: $id) { id name status nodes { id title status } } }",
    "asset": "query($id: ID!) { asset(id: $id) { id title status variants { id platform status } } }",  # noqa: E501
    "event": "query($id: ID!) { conversationEvent(id: $id) { id text sequence direction } }",
}
LISTS = [
    "{ plans(first: 20) { nodes { id name status } pageInfo { hasNextPage endCursor } } }",
    "{ assets(first: 20) { nodes { id title status } pageInfo { hasNextPage endCursor } } }",
    "{ conversationEvents(first: 20) { nodes { id text sequence } pageInfo { hasNextPage } } }",
    "{ memories(first: 20) { nodes { id key text version } pageInfo { hasNextPage } } }",
]
SEARCH = """query($input: SearchInput!) {
  search(input: $input) { hits { recordId recordType score } } }"""
PLAN = "mutation($input: CreatePlanInput!) { createPlan(input: $input) { id name } }"
APPEND = """mutation($input: AppendConversationEventInput!) {
  appendConversationEvent(input: $input) { event { id sequence } } }"""
# Per cent of requests: 40 reads by id or lists, 15 lineage, 15 search, 10 recall, 20 writes.
WEIGHTS = {
    "read by id": 25,
    "list": 15,
    "lineage": 15,
    "search": 15,
    "recall": 10,
    "remember": 10,
    "create": 10,
}
SEARCH_OPERATIONS = frozenset({"search"})


def namespace(n: int) -> dict[str, Any]:
    return {"subject": f"user{n % SUBJECTS}", "agent": AGENT, "path": ["load"]}


def memory(n: int, key: str, text: str) -> dict[str, Any]:
    """A remember input; record n's namespace and key are recalled by the load."""
    return {
        "kind": "SEMANTIC",
        "namespace": namespace(n),
        "key": key,
        "text": text,
        "tags": ["load", f"topic{n % 7}"],
        "priority": 1 + n % 9,
    }


def event(thread_id: str, text: str, n: int) -> dict[str, Any]:
    return {
        "threadId": thread_id,
        "direction": "INBOUND" if n % 2 == 0 else "OUTBOUND",
        "eventType": "DM_MESSAGE",
        "externalRef": f"load:msg:{uuid.uuid4().hex}",
        "text": text,
    }


@dataclass(frozen=True)
class Seeded:
    """What the set-up left for the load to read: ids per record type, the memory keys
    (memory n has key f"k{n}"), the conversation threads, and texts to write and ask."""

    ids: dict[str, list[str]]  # "plan", "asset", "event", "variant"
    memories: int
    threads: list[str]
    turns: list[str]
    questions: list[str]


Request = tuple[str, str, dict[str, Any]]  # operation, document, variables


@dataclass
class Mix:
    """One client's stream of requests (its own generator: the same seed, the same stream)."""

    seeded: Seeded
    client: int
    rng: random.Random = field(init=False)
    builders: dict[str, Callable[[], tuple[str, dict[str, Any]]]] = field(init=False)
    sent: int = 0

    def __post_init__(self) -> None:
        self.rng = random.Random(f"load-{self.client}")
        self.builders = {
            "read by id": self._read,
            "list": lambda: (self.rng.choice(LISTS), {}),
            "lineage": self._lineage,
            "search": self._search,
            "recall": self._recall,
            "remember": self._remember,
            "create": self._create,
        }

    def next(self) -> Request:
        self.sent += 1
        name = self.rng.choices(list(WEIGHTS), weights=list(WEIGHTS.values()))[0]
        document, variables = self.builders[name]()
        return name, document, variables

    def _read(self) -> tuple[str, dict[str, Any]]:
        kind = self.rng.choice(list(READS))
        return READS[kind], {"id": self.rng.choice(self.seeded.ids[kind])}

    def _lineage(self) -> tuple[str, dict[str, Any]]:
        document = self.rng.choice((UPSTREAM, TRACE))
        return document, {"id": self.rng.choice(self.seeded.ids["variant"])}

    def _search(self) -> tuple[str, dict[str, Any]]:
        questions = self.seeded.questions
        hot = self.rng.random() < HOT_SHARE
        text = self.rng.choice(questions[:HOT_QUERIES] if hot else questions)
        return SEARCH, {"input": {"text": text, "k": 10}}

    def _recall(self) -> tuple[str, dict[str, Any]]:
        n = self.rng.randrange(self.seeded.memories)
        return RECALL, {"ns": namespace(n), "key": f"k{n}"}

    def _remember(self) -> tuple[str, dict[str, Any]]:
        """Half upserts of seeded keys, half new keys."""
        text = self.rng.choice(self.seeded.turns)
        n = self.rng.randrange(self.seeded.memories)
        key = f"k{n}" if self.rng.random() < 0.5 else f"new-{uuid.uuid4().hex}"
        return REMEMBER, {"input": memory(n, key, text)}

    def _create(self) -> tuple[str, dict[str, Any]]:
        """A plan or an event appended to this client's own conversation."""
        text = self.rng.choice(self.seeded.turns)
        if self.rng.random() < 0.5:
            plan = {"name": text[:80] or "load plan", "createdBy": "AGENT"}
            return PLAN, {"input": plan | {"targetPlatforms": ["IG"], "summary": text}}
        thread = self.seeded.threads[self.client % len(self.seeded.threads)]
        return APPEND, {"input": event(thread, text, self.sent)}
