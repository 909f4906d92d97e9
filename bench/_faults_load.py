"""The faults benchmark's write load: one thread per client, taking turns at `remember` (content
stored in S3), `createPlan` and `appendConversationEvent` (text stored in S3, with externalRef).
Every acknowledged write is recorded with what was written; every other answer with its HTTP
status and error code, and the phase (fault) it fell in."""

from __future__ import annotations

import hashlib
import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx

REMEMBER = """mutation($input: RememberInput!) {
  remember(input: $input) { id contentUri contentSha256 } }"""
PLAN = "mutation($input: CreatePlanInput!) { createPlan(input: $input) { id name } }"
THREAD = """mutation($input: CreateConversationThreadInput!) {
  createConversationThread(input: $input) { thread { id } } }"""
APPEND = """mutation($input: AppendConversationEventInput!) {
  appendConversationEvent(input: $input) { event { id externalRef textUri textSha256 } } }"""
VIEWER = "{ viewer { clientId } }"
KINDS = ("remember", "plan", "event")
PAUSE_AFTER_FAILURE_S = 0.1


def content_sha256(value: Any) -> str:
    """As the service hashes memory content (app/domain/memory/content.py)."""
    data = json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(data.encode()).hexdigest()


@dataclass(frozen=True)
class Ack:
    kind: str
    client_id: str
    id: str
    expected: dict[str, Any]  # graph properties the write must have left, and object hashes
    at: float
    ms: float


@dataclass(frozen=True)
class Refusal:
    phase: str
    answer: str  # "HTTP 503 UNAVAILABLE", "no answer (ConnectError)", ...
    ms: float
    message: str  # the first error's message, if any


@dataclass
class Load:
    url: str
    keys: list[str]
    payload_bytes: int
    phase: str = "steady"
    acks: list[Ack] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    client_ids: list[str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> None:
        for key in self.keys:
            headers = {"Authorization": f"Bearer {key}"}
            with httpx.Client(base_url=self.url, timeout=30) as http:
                client_id = _post(http, headers, VIEWER)[1]["data"]["viewer"]["clientId"]
                thread_ref = {"platform": "INSTAGRAM", "threadType": "DM"}
                thread_ref["externalThreadRef"] = f"faults-{uuid.uuid4().hex}"
                body = _post(http, headers, THREAD, {"input": thread_ref})[1]
            self.client_ids.append(client_id)
            thread_id = body["data"]["createConversationThread"]["thread"]["id"]
            worker = threading.Thread(
                target=self._run, args=(headers, client_id, thread_id), daemon=True
            )
            self._threads.append(worker)
        for worker in self._threads:
            worker.start()

    def stop(self) -> None:
        self._stop.set()
        for worker in self._threads:
            worker.join(timeout=60)

    def first_ack_after(self, moment: float) -> float | None:
        return min((ack.at for ack in self.acks if ack.at > moment), default=None)

    def _run(self, headers: dict[str, str], client_id: str, thread_id: str) -> None:
        # Its own connection, opened now: one left idle during the set-up of the other
        # clients could meet the server's keep-alive timeout on its first request.
        http = httpx.Client(base_url=self.url, timeout=30)
        n = 0
        while not self._stop.is_set():
            kind = KINDS[n % len(KINDS)]
            n += 1
            document, variables, expected = self._write(kind, thread_id)
            started = time.monotonic()
            answer, body = _post(http, headers, document, variables)
            ms = (time.monotonic() - started) * 1000
            if answer == "ok":
                written = next(iter(body["data"].values()))
                written = written.get("event", written)
                at = time.monotonic()
                self.acks.append(Ack(kind, client_id, written["id"], expected, at, ms))
            else:
                errors = (body or {}).get("errors") or [{}]
                message = str(errors[0].get("message", ""))[:160]
                # the phase when it was answered: a write in flight when the API was killed
                # counts for that fault
                self.refusals.append(Refusal(self.phase, answer, ms, message))
                time.sleep(PAUSE_AFTER_FAILURE_S)

    def _write(self, kind: str, thread_id: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
        uid = uuid.uuid4().hex
        if kind == "remember":
            content = {"op": uid, "blob": "x" * self.payload_bytes}
            memory = {"kind": "SEMANTIC", "namespace": {"path": ["faults"]}, "key": uid}
            memory |= {"text": f"fault load {uid}", "content": content}
            expected = {"key": uid, "content_sha256": content_sha256(content)}
            return REMEMBER, {"input": memory}, expected
        if kind == "plan":
            plan = {"name": f"faults {uid}", "createdBy": "AGENT", "targetPlatforms": ["IG"]}
            return PLAN, {"input": plan}, {"name": plan["name"]}
        text = f"{uid} " + "y" * self.payload_bytes
        event = {"threadId": thread_id, "direction": "INBOUND", "eventType": "DM_MESSAGE"}
        event |= {"externalRef": uid, "text": text}
        expected = {"external_ref": uid, "text_sha256": hashlib.sha256(text.encode()).hexdigest()}
        return APPEND, {"input": event}, expected


def _post(
    http: httpx.Client,
    headers: dict[str, str],
    document: str,
    variables: dict[str, Any] | None = None,
) -> tuple[str, Any]:
    """("ok", body) for an acknowledged answer, else (what came back, body or None)."""
    try:
        response = http.post(
            "/graphql", json={"query": document, "variables": variables or {}}, headers=headers
        )
    except httpx.HTTPError as error:
        return f"no answer ({type(error).__name__})", None
    try:
        body = response.json()
    except ValueError:
        return f"HTTP {response.status_code} (not JSON)", None
    codes = sorted({e.get("extensions", {}).get("code", "?") for e in body.get("errors") or []})
    if response.status_code == 200 and not codes:
        return "ok", body
    return f"HTTP {response.status_code} {'/'.join(codes)}".strip(), body
