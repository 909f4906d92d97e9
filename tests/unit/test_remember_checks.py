"""`remember` checks a memory's fields once per call (app/domain/memory/records.py): the checked
memory is the one whose content is stored and written. The graph write is a stand-in here."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from types import SimpleNamespace
from typing import Any

import pytest

from app.domain.kernel.principal import Principal
from app.domain.memory import PreparedMemory
from app.domain.memory import fields as memory_fields
from app.domain.memory import records as memory_records
from app.model.enums import Role

AGENT = Principal(client_id="c1", role=Role.AGENT, key_id="k1", agent_name="tester")


class Graph:
    async def in_transaction(self, work: Callable[[Any], Awaitable[Any]]) -> Any:
        return await work(None)


def test_remember_checks_the_fields_once(monkeypatch: pytest.MonkeyPatch) -> None:
    checks: list[dict[str, Any]] = []
    written: list[PreparedMemory] = []
    check = memory_fields.check_memory

    def counted_check(fields: dict[str, Any], **kw: Any) -> PreparedMemory:
        checks.append(fields)
        return check(fields, **kw)

    async def write(tx: Any, *, principal: Principal, memory: PreparedMemory, now: Any) -> Any:
        written.append(memory)
        return SimpleNamespace(change="create", record={"id": "r1", "version": 1})

    # Both names the check was reached by (remember's own, and prepare_memory's).
    monkeypatch.setattr(memory_fields, "check_memory", counted_check)
    monkeypatch.setattr(memory_records, "check_memory", counted_check)
    monkeypatch.setattr(memory_records, "write_memory", write)
    fields = {"kind": "semantic", "text": "likes tea", "tags": ["drinks"]}
    out = asyncio.run(
        memory_records.remember(Graph(), SimpleNamespace(), principal=AGENT, fields=fields)  # type: ignore[arg-type]
    )
    assert out == {"id": "r1", "version": 1}
    assert checks == [fields]
    assert written[0].state["text"] == "likes tea" and written[0].state["tags"] == ["drinks"]
    assert written[0].state["source_agent"] == "tester"
