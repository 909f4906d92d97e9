"""The API key a request presents, and the answer to a request without a known one: the same
for every HTTP door (/graphql, /mcp, /readyz's detail)."""

from __future__ import annotations

from collections.abc import Mapping

UNAUTHENTICATED = {
    "errors": [
        {
            "message": "missing or unknown API key; send 'Authorization: Bearer <key>' "
            "(create one with `agentmem create-key`)",
            "extensions": {"code": "UNAUTHENTICATED"},
        }
    ]
}


def presented_key(headers: Mapping[bytes, bytes]) -> str | None:
    """The secret of `Authorization: Bearer <key>` or `X-API-Key: <key>`, from headers_of."""
    header = headers.get(b"authorization", b"").decode("latin-1")
    if header[:7].lower() == "bearer ":
        return header[7:].strip()
    key = headers.get(b"x-api-key")
    return None if key is None else key.decode("latin-1")
