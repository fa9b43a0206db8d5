"""Business errors of intents, raised as non-retryable Temporal `ApplicationError`s.

The error `type` is the API's error code: the API maps each type to an HTTP status
(`api/errors.py`) and passes message and details through to the error envelope.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from temporalio.exceptions import ApplicationError, ApplicationErrorCategory


class IntentError(StrEnum):
    EXTERNAL_ACCOUNT_NOT_FOUND = "EXTERNAL_ACCOUNT_NOT_FOUND"
    NO_ELIGIBLE_PROVIDER = "NO_ELIGIBLE_PROVIDER"
    PROVIDER_NOT_ELIGIBLE = "PROVIDER_NOT_ELIGIBLE"
    AMOUNT_VALIDATION_ERROR = "AMOUNT_VALIDATION_ERROR"
    TRANSACTION_EXISTS = "TRANSACTION_EXISTS"
    COMPLIANCE_NOT_COMPLETE = "COMPLIANCE_NOT_COMPLETE"
    INTENT_CLOSED = "INTENT_CLOSED"
    # The provider did not accept the order (it refused, or kept failing).
    PROVIDER_ERROR = "PROVIDER_ERROR"
    # Our own dependencies (database) kept failing; nothing was created.
    TEMPORARILY_UNAVAILABLE = "TEMPORARILY_UNAVAILABLE"


def intent_error(
    error: IntentError, message: str, details: dict[str, Any] | None = None
) -> ApplicationError:
    # BENIGN: an expected refusal, so the worker does not log it with a traceback.
    return ApplicationError(
        message,
        details or {},
        type=error.value,
        non_retryable=True,
        category=ApplicationErrorCategory.BENIGN,
    )
