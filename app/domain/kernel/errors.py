"""Expected failures: each has a stable code the API returns and a message that says what to fix."""

from __future__ import annotations

import math
from typing import Any


class AppError(Exception):
    code = "INTERNAL"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class NotFound(AppError):
    code = "NOT_FOUND"


class ValidationFailed(AppError):
    code = "VALIDATION"


class InvalidTransition(AppError):
    code = "INVALID_TRANSITION"


class Forbidden(AppError):
    code = "FORBIDDEN"


class Conflict(AppError):
    code = "CONFLICT"


class Unauthenticated(AppError):
    code = "UNAUTHENTICATED"


class ApprovalRequired(AppError):
    code = "APPROVAL_REQUIRED"


class CycleDetected(AppError):
    code = "CYCLE"


class Unavailable(AppError):
    """Neo4j or object storage refused, dropped or did not answer in time: nothing the request
    did wrong, so the API answers HTTP 503 with a hint of when to retry."""

    code = "UNAVAILABLE"

    def __init__(self, message: str, *, retry_after_s: int) -> None:
        super().__init__(message, retryAfterSeconds=retry_after_s)
        self.retry_after_s = retry_after_s


def retry_hint(timeout_s: float | None) -> int:
    """Seconds a client should wait before retrying after an outage: the dependency timeout."""
    return max(1, math.ceil(timeout_s or 5))


class CursorExpired(AppError):
    """A change feed cursor older than the feed's retention: the changes after it are gone."""

    code = "CURSOR_EXPIRED"
