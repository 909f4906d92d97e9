"""Expected failures: each has a stable code the API returns and a message that says what to fix."""

from __future__ import annotations

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
