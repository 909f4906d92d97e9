"""Writing a LoCoMo conversation through the service's own GraphQL API: one thread of events
(externalRef = dia_id; speaker, date and dia_id in metadata; an image's caption as
metadata.media_caption), and its observations and session summaries as memory records derived
from (DERIVED_FROM links to) their turns."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import httpx

from bench.locomo_data import Conversation, Note, Turn

CREATE_THREAD = """mutation($input: CreateConversationThreadInput!) {
  createConversationThread(input: $input) { thread { id } } }"""
APPEND = """mutation($events: [AppendConversationEventInput!]!) {
  appendConversationEvents(events: $events) { results { event { id externalRef } } } }"""
STATUS = "{ searchStatus { pending } }"
# The API allows 30 aliases per document. Writes go in steps of about 100 records, each
# indexed before the next: the worker's fresh pass (newest first) keeps up with that even
# behind another client's backlog, which a bulk write can fall into.
EVENT_BATCH, NOTE_BATCH, NOTE_STEP = 100, 25, 4


def gql(http: httpx.Client, query: str, variables: dict[str, Any] | None = None) -> Any:
    body = http.post("/graphql", json={"query": query, "variables": variables or {}}).json()
    if body.get("errors"):
        raise RuntimeError(f"GraphQL errors: {body['errors']}")
    return body["data"]


def chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def ingest_turns(
    http: httpx.Client, conv: Conversation, settle: Callable[[], None]
) -> tuple[str, dict[str, str]]:
    """The thread id and event id per dia_id."""
    thread = gql(
        http,
        CREATE_THREAD,
        {
            "input": {
                "platform": "INSTAGRAM",
                "threadType": "DM",
                "externalThreadRef": f"locomo:{conv.sample_id}",
                "participantExternalRef": conv.speakers[0],
            }
        },
    )["createConversationThread"]["thread"]["id"]
    events: dict[str, str] = {}
    for batch in chunks(conv.turns, EVENT_BATCH):
        inputs = [_event(thread, turn, conv.speakers[0]) for turn in batch]
        results = gql(http, APPEND, {"events": inputs})["appendConversationEvents"]["results"]
        events |= {r["event"]["externalRef"]: r["event"]["id"] for r in results}
        settle()
    return thread, events


def _event(thread: str, turn: Turn, first_speaker: str) -> dict[str, Any]:
    metadata: dict[str, Any] = {"speaker": turn.speaker, "dia_id": turn.dia_id}
    metadata |= {"session": turn.session, "date_time": turn.date_time}
    if turn.caption:
        metadata["media_caption"] = turn.caption
    return {
        "threadId": thread,
        "direction": "INBOUND" if turn.speaker == first_speaker else "OUTBOUND",
        "eventType": "DM_MESSAGE",
        "externalRef": turn.dia_id,
        "text": turn.text,
        "metadata": metadata,
        "occurredAt": turn.occurred_at.isoformat() if turn.occurred_at else None,
    }


def ingest_notes(
    http: httpx.Client, conv: Conversation, events: dict[str, str], settle: Callable[[], None]
) -> tuple[int, int]:
    """Observations and session summaries as memory records, each linked DERIVED_FROM the turns
    it is about (a summary: every turn of its session). Returns (records, links)."""
    by_session: dict[int, list[str]] = {}
    for turn in conv.turns:
        by_session.setdefault(turn.session, []).append(turn.dia_id)
    records, links = 0, 0
    for n, batch in enumerate(chunks(conv.notes, NOTE_BATCH), start=1):
        if n % NOTE_STEP == 0:
            settle()
        ids = _remember(http, conv, batch)
        records += len(ids)
        pairs = [
            (record, events[dia])
            for record, note in zip(ids, batch, strict=True)
            for dia in (note.turns or by_session.get(note.session, []))
            if dia in events
        ]
        for group in chunks(pairs, NOTE_BATCH):
            _link(http, group)
            links += len(group)
    return records, links


def _remember(http: httpx.Client, conv: Conversation, notes: Sequence[Note]) -> list[str]:
    names = [f"n{i}" for i in range(len(notes))]
    header = ", ".join(f"${name}: RememberInput!" for name in names)
    fields = " ".join(f"{name}: remember(input: ${name}) {{ id }}" for name in names)
    variables = {name: _memory(conv, note) for name, note in zip(names, notes, strict=True)}
    data = gql(http, f"mutation({header}) {{ {fields} }}", variables)
    return [data[name]["id"] for name in names]


def _memory(conv: Conversation, note: Note) -> dict[str, Any]:
    content: dict[str, Any] = {"session": note.session, "source": note.kind}
    if note.turns:
        content["dia_ids"] = list(note.turns)
    return {
        "kind": "OBSERVATION" if note.kind == "observation" else "EPISODIC",
        "namespace": {"subject": conv.sample_id, "path": ["locomo", f"session-{note.session}"]},
        "text": note.text,
        "content": content,
    }


def _link(http: httpx.Client, pairs: Sequence[tuple[str, str]]) -> None:
    fields = " ".join(
        f'l{i}: linkRecords(fromId: "{src}", toId: "{dst}", relation: DERIVED_FROM) {{ linkId }}'
        for i, (src, dst) in enumerate(pairs)
    )
    gql(http, f"mutation {{ {fields} }}")


def wait_indexed(clients: Sequence[httpx.Client], timeout_s: float) -> float:
    """Polls searchStatus until no record of these clients waits for the embedding worker."""
    started = time.monotonic()
    while True:
        pending = sum(gql(http, STATUS)["searchStatus"]["pending"] for http in clients)
        waited = time.monotonic() - started
        print(f"\r  embedding: {pending} pending after {waited:.0f} s   ", end="", file=sys.stderr)
        if pending == 0:
            return waited
        if waited > timeout_s:
            raise TimeoutError(f"{pending} records still not indexed after {timeout_s:.0f} s")
        time.sleep(1)
