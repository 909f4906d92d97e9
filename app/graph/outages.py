"""How the executor tells a graph database that is gone from any other error, and says so."""

from __future__ import annotations

from typing import TypedDict

from neo4j.exceptions import ConnectionPoolError, ServiceUnavailable, SessionExpired, TransientError

from app.domain.kernel.errors import Unavailable

# A server that refuses, drops or never answers, a pool with no connection to give, or a
# transient server state (starting, deadlocks) that outlived the driver's retries. TimeoutError
# (an OSError) is also what a call's own bound, or the request's deadline, raises.
CONNECTIVITY_ERRORS = (
    ServiceUnavailable,
    SessionExpired,
    ConnectionPoolError,
    TransientError,
    OSError,
)


class DriverTimeouts(TypedDict):
    connection_timeout: float
    connection_acquisition_timeout: float
    max_transaction_retry_time: float


def driver_timeouts(timeout_s: float) -> DriverTimeouts:
    """The driver settings that bound connecting, waiting for a pooled connection and retrying
    a transaction (defaults: 30 s, 60 s, 30 s)."""
    return DriverTimeouts(
        connection_timeout=timeout_s,
        connection_acquisition_timeout=timeout_s,
        max_transaction_retry_time=timeout_s,
    )


def never_sent(error: BaseException) -> bool:
    """The failure was a refused connection: nothing of the request reached a server (so a
    write certainly did not happen), whatever the driver wrapped it in."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, ConnectionRefusedError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def graph_unavailable(error: BaseException, retry_after_s: int) -> Unavailable:
    return Unavailable(
        f"the graph database is unavailable ({type(error).__name__}); retry in {retry_after_s} s",
        retry_after_s=retry_after_s,
    )
