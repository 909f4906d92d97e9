"""The memory access log (seed 004): who read or wrote which memory record, and how it went.

Repositories call `audited(...)`, which only appends to an in-process buffer; a background
task (AccessLogWriter.run, started by the app's lifespan) writes the buffer to the graph in one
UNWIND transaction every `flush_ms` or as soon as `batch` entries wait, and once more at
shutdown. So logging adds no round trip to the request. The lifespan installs the writer for
its event loop, so every caller of the memory repositories is logged without passing it on;
with none installed, or the log disabled in settings, nothing is recorded. Each entry also
carries what the HTTP request says of itself (app/domain/kernel/request_facts.py: request id,
client address, session header, sanitised variables) and the error's code and message.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.domain.kernel import request_facts
from app.domain.kernel.errors import AppError, NotFound, Unavailable
from app.domain.kernel.ids import new_id
from app.domain.kernel.principal import Principal
from app.domain.memory.access_log_writer import AccessLogWriter
from app.logs import request_id
from app.model.enums import AccessOutcome


@dataclass
class Audit:
    """What the audited block fills in as it learns it (the target once resolved, the memory
    session it concerns)."""

    operation: str
    target_id: str | None = None
    target_type: str = "MemoryRecord"
    detail: str | None = None
    session_id: str | None = None
    error_message: str | None = None


# One writer per event loop: each app instance (tests run several in one process, each on its
# own loop) logs through the writer its own lifespan installed.
_writers: dict[asyncio.AbstractEventLoop, AccessLogWriter] = {}


def install(writer: AccessLogWriter | None) -> None:
    loop = asyncio.get_running_loop()
    if writer is None:
        _writers.pop(loop, None)
    else:
        _writers[loop] = writer


def installed() -> AccessLogWriter | None:
    try:
        return _writers.get(asyncio.get_running_loop())
    except RuntimeError:  # no running loop: nothing to log to
        return None


def record(principal: Principal, audit: Audit, outcome: AccessOutcome) -> None:
    if installed() is None:
        return  # nothing to log to: the request's facts need not be sanitised
    facts = request_facts.current()
    session = audit.target_id if audit.target_type == "MemorySession" else audit.session_id
    _submit(
        principal.client_id,
        operation=audit.operation,
        principal=principal.agent_name or principal.key_id,
        key_id=principal.key_id,
        role=principal.role.value,
        target_type=audit.target_type,
        target_id=audit.target_id,
        outcome=outcome.value,
        detail=audit.detail,
        error_message=audit.error_message,
        # What the HTTP request says of itself (seed 004); none outside a request.
        session_id=session or (facts.session_id if facts else None),
        request_id=request_id.get() if facts else None,
        request_data=facts.request_data() if facts else None,
        client_address=facts.client_address if facts else None,
    )


def record_system(client_id: str, operation: str, *, detail: str, count: int = 1) -> None:
    """An entry for work the service did on its own (the expiry sweeper), in the client's log."""
    _submit(
        client_id,
        operation=operation,
        principal="system:sweeper",
        role="system",
        target_type="MemoryRecord",
        outcome=AccessOutcome.OK.value,
        detail=f"{count} {detail}",
    )


def _submit(client_id: str, **entry: Any) -> None:
    """One entry to the installed writer (none installed: nothing to log to)."""
    writer = installed()
    if writer is None:
        return
    now = datetime.now(UTC)
    writer.submit(
        {"id": new_id(), "client_id": client_id, **entry, "created_at": now, "updated_at": now}
    )


def error_message(error: BaseException) -> str:
    """An expected error's code and message; only the kind of any other (never its text)."""
    if isinstance(error, AppError):
        return f"{error.code}: {error.message}"[:500]
    return f"INTERNAL: {type(error).__name__}"


def outcome_of(error: BaseException) -> AccessOutcome:
    if isinstance(error, NotFound):
        return AccessOutcome.NOT_FOUND
    if isinstance(error, AppError) and not isinstance(error, Unavailable):
        return AccessOutcome.REJECTED
    return AccessOutcome.ERROR


@contextmanager
def audited(
    principal: Principal,
    operation: str,
    *,
    target_id: str | None = None,
    target_type: str = "MemoryRecord",
) -> Iterator[Audit]:
    """Logs the block's operation once, with its outcome: ok, or from the error it raised.
    The block may refine the audit (the target once resolved, the operation, a detail)."""
    audit = Audit(operation=operation, target_id=target_id, target_type=target_type)
    try:
        yield audit
    except BaseException as error:
        audit.error_message = error_message(error)
        record(principal, audit, outcome_of(error))
        raise
    record(principal, audit, AccessOutcome.OK)
