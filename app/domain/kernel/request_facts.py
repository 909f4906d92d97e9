"""What the HTTP request being served says about itself, for the access log (seed 004): the
client's address, the session it names (`X-Session-Id`), and its JSON body, kept as parsed and
sanitised only when an entry is written (most requests write none).

The edge (app/web/middleware.py) opens one per request; the body parser notes the body. Outside
a request (the CLI, the sweeper) there is none and the log's request fields stay empty.

Sanitised request data is the operation name and variables of the GraphQL request (a batch: of
each operation), with secrets replaced (by key name: password, token, secret, api key, ...; by
value: an API key or a bearer token) and long values cut (texts, lists, maps, depth), within
MAX_REQUEST_DATA characters of JSON: limits are tightened until it fits.
"""

from __future__ import annotations

import json
import re
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

MAX_REQUEST_DATA = 1_000  # the access log's longest text (access_log_batches.MAX_TEXT)
REDACTED = "[redacted]"
# A key names a secret when its last word does (accessToken, client_secret, password), or its
# last two (apiKey, private_key): tokenBudget and maxTokens are kept.
SECRET_WORDS = frozenset(
    {
        "password",
        "passwd",
        "passphrase",
        "secret",
        "token",
        "authorization",
        "credential",
        "credentials",
        "apikey",
        "cookie",
    }
)
SECRET_PAIRS = frozenset({("api", "key"), ("secret", "key"), ("private", "key"), ("access", "key")})
WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
SECRET_SPAN = 128  # looked at past the cut: a secret that starts before it is found whole
SECRET_VALUE = re.compile(r"\bam_[0-9a-f]{8}_[\w-]{20,}|\bbearer\s+\S+", re.I)
# (text characters, list items, map entries, depth), loosest first.
LIMITS = ((120, 10, 20, 5), (40, 5, 10, 4), (16, 3, 6, 3), (0, 0, 0, 1))


@dataclass(slots=True)
class RequestFacts:
    client_address: str | None = None
    session_id: str | None = None
    body: Any = None  # the parsed JSON body, as the client sent it
    # request_data's answer, made once per request however many entries it writes.
    sanitised_data: tuple[str | None] | None = None

    def request_data(self) -> str | None:
        """The sanitised operation name and variables as JSON text; None without a body."""
        if self.sanitised_data is None:
            self.sanitised_data = (self._sanitise(),)
        return self.sanitised_data[0]

    def _sanitise(self) -> str | None:
        operations = self.body if isinstance(self.body, list) else [self.body]
        shown = [_operation(op) for op in operations if isinstance(op, dict)]
        if not shown:
            return None
        value: Any = shown if isinstance(self.body, list) else shown[0]
        for limits in LIMITS:
            text = json.dumps(sanitised(value, *limits), ensure_ascii=False, default=str)
            if len(text) <= MAX_REQUEST_DATA:
                return text
        return json.dumps({"cut": True})


_facts: ContextVar[RequestFacts | None] = ContextVar("request_facts", default=None)


def start_request(client_address: str | None, session_id: str | None) -> RequestFacts:
    facts = RequestFacts(client_address=client_address, session_id=session_id)
    _facts.set(facts)
    return facts


def note_body(body: Any) -> None:
    """The request's parsed JSON body (no request open: nothing to note)."""
    facts = _facts.get()
    if facts is not None:
        facts.body, facts.sanitised_data = body, None


def resume(facts: RequestFacts) -> None:
    """Carry a request's facts into a task that does not see its context (the MCP SDK's)."""
    _facts.set(facts)


def current() -> RequestFacts | None:
    return _facts.get()


def _operation(operation: dict[str, Any]) -> dict[str, Any]:
    return {
        "operationName": operation.get("operationName"),
        "variables": operation.get("variables") or {},
    }


def secret_key(name: str) -> bool:
    words = [word.lower() for word in WORD.findall(name)]
    return bool(words) and (words[-1] in SECRET_WORDS or tuple(words[-2:]) in SECRET_PAIRS)


def _holds_secret(text: str) -> bool:
    # The substring tests are cheap; the pattern runs on the rare text that passes them.
    return ("am_" in text or "bearer" in text.lower()) and SECRET_VALUE.search(text) is not None


def sanitised(value: Any, text: int, items: int, entries: int, depth: int) -> Any:
    """`value` with secrets replaced and texts, lists and maps cut to the limits given."""
    if isinstance(value, str):
        if _holds_secret(value[: text + SECRET_SPAN]):  # only a secret starting there shows
            return REDACTED
        return value if len(value) <= text else f"{value[:text]}…(+{len(value) - text})"
    if not isinstance(value, dict | list):
        return value
    if depth <= 0:
        return f"…({len(value)} {'entries' if isinstance(value, dict) else 'items'})"
    if isinstance(value, list):
        kept = [sanitised(v, text, items, entries, depth - 1) for v in value[:items]]
        return kept + ([f"…(+{len(value) - items})"] if len(value) > items else [])
    out: dict[str, Any] = {}
    for key, item in list(value.items())[:entries]:
        name = str(key)[:64]
        secret = secret_key(name)
        out[name] = REDACTED if secret else sanitised(item, text, items, entries, depth - 1)
    if len(value) > entries:
        out["…"] = f"+{len(value) - entries} entries"
    return out
