"""The refusals of the application services, as our own exception types.

A service raises one of these with the error code and the words a client reads; the API
maps each type to an HTTP status in one place (api/errors.py), the CLI prints the
message. Nothing here knows about HTTP.
"""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """A use case refused: `code` names why (the API's error code), `message` says it."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}


class InvalidInput(DomainError):
    """The input breaks a rule of the domain (a schema, a route, an origin)."""


class NotFound(DomainError):
    """The thing does not exist, or not for this caller: both read alike."""

    def __init__(self, what: str) -> None:
        super().__init__("NOT_FOUND", f"{what} not found")


class Conflict(DomainError):
    """The input is fine but the current state refuses it."""


class NotAuthenticated(DomainError):
    """A proof of identity did not hold; `scheme` names the kind of proof expected."""

    def __init__(
        self, code: str, message: str, scheme: str, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(code, message, details)
        self.scheme = scheme
