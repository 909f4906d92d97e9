"""A graphql-transport-ws client for the tests (the protocol GraphQL subscriptions speak at
/graphql), over the `websockets` library's synchronous client."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from websockets.sync.client import ClientConnection, connect

PROTOCOL = "graphql-transport-ws"


class Subscription:
    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket

    def subscribe(
        self, query: str, variables: dict[str, Any] | None = None, sid: str = "1"
    ) -> None:
        payload = {"query": query, "variables": variables or {}}
        self.socket.send(json.dumps({"id": sid, "type": "subscribe", "payload": payload}))

    def next(self, timeout_s: float = 15.0) -> dict[str, Any]:
        """The next `next` message's data (pings answered, errors raised)."""
        deadline = time.monotonic() + timeout_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no subscription message in time")
            message = json.loads(self.socket.recv(timeout=left))
            if message["type"] == "ping":
                self.socket.send(json.dumps({"type": "pong"}))
                continue
            if message["type"] == "next":
                payload = message["payload"]
                assert not payload.get("errors"), payload["errors"]
                return dict(payload["data"])
            raise AssertionError(f"unexpected message {message}")

    def drain(self, seconds: float) -> list[dict[str, Any]]:
        """Every `next` message's data arriving within `seconds`."""
        got: list[dict[str, Any]] = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                got.append(self.next(timeout_s=deadline - time.monotonic()))
            except TimeoutError:
                break
        return got

    def nothing_for(self, seconds: float) -> None:
        """Asserts no `next` message arrives within `seconds`."""
        try:
            message = self.socket.recv(timeout=seconds)
        except TimeoutError:
            return
        raise AssertionError(f"unexpected message {message}")


def ws_url(api_url: str) -> str:
    return api_url.replace("http://", "ws://") + "/graphql"


@contextmanager
def subscription(api_url: str, key: str | None) -> Iterator[Subscription]:
    """A connection acknowledged for `key` (sent in connection_init's payload)."""
    with connect(ws_url(api_url), subprotocols=[PROTOCOL], open_timeout=10) as socket:  # type: ignore[list-item]
        payload = {"Authorization": f"Bearer {key}"} if key else {}
        socket.send(json.dumps({"type": "connection_init", "payload": payload}))
        ack = json.loads(socket.recv(timeout=10))
        assert ack["type"] == "connection_ack", ack
        yield Subscription(socket)
