"""What a route of the API is besides its handler: its OpenAPI operation and body limit.

Each route of `api.routes` carries its `Operation`; api/openapi.py builds the document
from them and api/middleware.py reads the body limit from them, so the route table is
kept once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel
from starlette.routing import Route

# "admin": the dashboard's session cookie (+ X-CSRF-Token) or an organization API key.
Auth = Literal["basic", "bearer", "onboarding", "admin"] | None


@dataclass(frozen=True)
class Operation:
    operation_id: str
    summary: str
    auth: Auth
    status: int
    response: type[BaseModel] | Literal["text", "list"] | None
    request: type[BaseModel] | None = None
    item: type[BaseModel] | None = None  # for "list" responses
    parameters: tuple[dict[str, Any], ...] = ()
    errors: tuple[int, ...] = ()
    # Other success statuses with the same body (create-or-retrieve answers 200 too).
    also: tuple[int, ...] = ()
    # Headers of the success response: name -> description.
    headers: tuple[tuple[str, str], ...] = ()
    body_required: bool = True
    # Unauthenticated but limited per source address (429), see api/throttling.py.
    limited_per_address: bool = False
    # Bodies up to this size even when the service's limit (RAMP_MAX_BODY_BYTES) is lower.
    max_body_bytes: int | None = None


class ApiRoute(Route):
    """A route of the public API: one method on one path, documented by its operation."""

    def __init__(
        self, method: str, path: str, endpoint: Callable[..., Any], operation: Operation
    ) -> None:
        super().__init__(path, endpoint, methods=[method])
        self.method = method
        self.operation = operation


def body_limit(operation: Operation | None, service_max_bytes: int) -> int:
    """The largest body a route accepts (413 beyond) under the service's general limit."""
    if operation is None or operation.max_body_bytes is None:
        return service_max_bytes
    return max(operation.max_body_bytes, service_max_bytes)


def query_currency(name: str, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "query",
        "required": True,
        "description": description,
        "schema": {"$ref": "#/components/schemas/CurrencyCode"},
    }


def path_parameter(name: str, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "path",
        "required": True,
        "description": description,
        "schema": {"type": "string"},
    }


def query_filter(name: str, description: str, schema: str | None = None) -> dict[str, Any]:
    """An optional filter of a list; `schema` names the component of its values (an enum)."""
    return {
        "name": name,
        "in": "query",
        "required": False,
        "description": description,
        "schema": {"$ref": f"#/components/schemas/{schema}"} if schema else {"type": "string"},
    }


def query_timestamp(name: str, description: str) -> dict[str, Any]:
    """An optional bound of a time range (ISO 8601 with a time zone)."""
    return {
        "name": name,
        "in": "query",
        "required": False,
        "description": description,
        "schema": {"type": "string", "format": "date-time"},
    }


LIMIT = {
    "name": "limit",
    "in": "query",
    "required": False,
    "description": "Items per page, 1 to 100",
    "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
}
CURSOR = {
    "name": "cursor",
    "in": "query",
    "required": False,
    "description": 'Opaque and signed; taken from the `Link: <...>; rel="next"` header of '
    "the same list (another list's, another owner's or a crafted one is `400 INVALID_CURSOR`)",
    "schema": {"type": "string"},
}
IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "Retrying with the same key (1 to 255 printable characters, scoped to the "
    "caller) within 24 hours returns the response of the first request instead of creating "
    "again, marked `Idempotent-Replayed: true`; the same key with another request is a "
    "422 `IDEMPOTENCY_KEY_REUSED`.",
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
}

# The success headers of a route that takes an Idempotency-Key.
REPLAYED_HEADERS: tuple[tuple[str, str], ...] = (
    (
        "Idempotent-Replayed",
        "`true` when this is the stored response of an earlier request with the same "
        "Idempotency-Key",
    ),
    ("X-Idempotency-Replayed", "The same as `Idempotent-Replayed` (the reference's name)"),
)
