"""The service's error envelope as exceptions: `{"statusCode", "error", "code",
"message", "details"}` (and `requestId` where the service sends one)."""

from __future__ import annotations

from typing import Any

import httpx


class RampError(Exception):
    """An error answer of the API. `code` is the stable machine-readable code (see the
    reference at /v1/docs); `message` is for people and may change."""

    def __init__(
        self,
        status_code: int,
        code: str,
        message: str,
        details: dict[str, Any] | None = None,
        request_id: str | None = None,
        response: httpx.Response | None = None,
    ) -> None:
        super().__init__(f"{status_code} {code}: {message}")
        self.status_code = status_code
        self.code = code
        self.message = message
        self.details = details or {}
        # Absent from services that do not name their requests yet.
        self.request_id = request_id
        self.response = response

    @property
    def fields(self) -> list[dict[str, Any]]:
        """The invalid fields of a 400, each with its JSON `pointer` and `reason`."""
        found = self.details.get("fields")
        return list(found) if isinstance(found, list) else []


class InvalidRequestError(RampError):
    """400 or 422: the request is refused as sent (fix it before sending it again)."""


class AuthenticationError(RampError):
    """401: missing, wrong or expired credentials."""


class PermissionDeniedError(RampError):
    """403: the credentials do not allow this."""


class NotFoundError(RampError):
    """404: no such resource for these credentials (or not in this environment)."""


class ConflictError(RampError):
    """409: the resource's present state refuses the request."""


class RateLimitedError(RampError):
    """429: too many requests; `retry_after` seconds to wait (when the service says)."""

    @property
    def retry_after(self) -> float | None:
        value = self.response.headers.get("retry-after") if self.response is not None else None
        return float(value) if value is not None and value.isdigit() else None


class ServiceError(RampError):
    """5xx: the service or its provider failed; the same request may succeed later."""


_BY_STATUS: dict[int, type[RampError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: InvalidRequestError,
    429: RateLimitedError,
}


def error_from_response(response: httpx.Response) -> RampError:
    """The exception of an error response (a body that is not the envelope still gives
    one, with the HTTP reason as its code)."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        body = {}
    details = body.get("details")
    kind = _BY_STATUS.get(response.status_code) or (
        ServiceError if response.status_code >= 500 else RampError
    )
    return kind(
        response.status_code,
        str(body.get("code") or response.reason_phrase or "HTTP_ERROR"),
        str(body.get("message") or response.text[:200]),
        details if isinstance(details, dict) else None,
        body.get("requestId") or response.headers.get("x-request-id"),
        response,
    )
