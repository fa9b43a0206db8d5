"""The one error envelope, and the exception handlers that produce it.

Every error leaves the API as
`{"statusCode", "error", "code", "message", "details", "requestId"}`; endpoints raise `ApiError`,
services raise domain errors (`ramp.errors`, mapped to a status by their kind here), and
none builds error responses itself.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from http import HTTPStatus
from typing import Any

from pydantic import ValidationError
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.types import ExceptionHandler, Scope
from temporalio.client import WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError
from temporalio.service import RPCError

from api.logs import redact
from api.request_ids import request_id_of
from api.schemas import ErrorEnvelope
from ramp.errors import (
    Conflict,
    DomainError,
    Forbidden,
    IntentError,
    InvalidInput,
    NotAuthenticated,
    NotFound,
    ProviderFailed,
    Refused,
    Throttled,
    Unavailable,
    Unprocessable,
    WebhookError,
)
from ramp.observability import context, metrics
from ramp.observability.context import REQUEST_ID_HEADER
from ramp.temporal import domain_error
from ramp.webhooks.endpoints import EndpointRefused

logger = logging.getLogger("ramp.api")


class ApiError(Exception):
    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details or {}
        self.headers = headers


def bad_request(code: str, message: str, details: dict[str, Any] | None = None) -> ApiError:
    return ApiError(400, code, message, details)


def not_found(what: str) -> ApiError:
    return ApiError(404, "NOT_FOUND", f"{what} not found")


def unauthorized(code: str, message: str, scheme: str) -> ApiError:
    return ApiError(401, code, message, headers={"WWW-Authenticate": scheme})


def error_response(
    status: int,
    code: str,
    message: str,
    details: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    if status == 429:
        metrics.REFUSALS.labels(code).inc()
    body = ErrorEnvelope(
        status_code=status,
        error=HTTPStatus(status).phrase,
        code=code,
        message=message,
        details=details or {},
        request_id=context.request_id.get(),
    )
    return JSONResponse(body.model_dump(mode="json"), status_code=status, headers=headers)


def json_pointer(part: str | int) -> str:
    """One reference token of an RFC 6901 pointer."""
    return str(part).replace("~", "~0").replace("/", "~1")


def validation_details(error: ValidationError) -> dict[str, Any]:
    """Pydantic errors as the same {pointer, reason} list schema failures use, in our
    wording (pydantic's own, such as `Field required`, never reaches a client)."""
    fields = []
    for item in error.errors(include_url=False, include_input=False):
        pointer = "".join(f"/{json_pointer(part)}" for part in item["loc"])
        fields.append({"pointer": pointer or "/", "reason": field_reason(item)})
    return {"fields": fields}


# Pydantic error types -> our reason; `{name}` is filled from the error's context.
_REASONS = {
    "missing": "is required",
    "extra_forbidden": "is not allowed",
    "string_type": "must be a string",
    "int_type": "must be an integer",
    "bool_type": "must be true or false",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "list_type": "must be an array",
    "string_too_short": "must be at least {min_length} characters",
    "string_too_long": "must be at most {max_length} characters",
    "string_pattern_mismatch": "must match the pattern {pattern}",
    "too_short": "must have at least {min_length} items",
    "too_long": "must have at most {max_length} items",
    "greater_than_equal": "must be at least {ge}",
    "less_than_equal": "must be at most {le}",
    "greater_than": "must be greater than {gt}",
    "less_than": "must be less than {lt}",
    "enum": "must be one of {expected}",
    "literal_error": "must be one of {expected}",
}


def field_reason(item: Any) -> str:
    kind: str = item["type"]
    context: dict[str, Any] = item.get("ctx") or {}
    if kind in ("value_error", "assertion_error") and "error" in context:
        return str(context["error"])  # our validators' own words
    if kind in ("string_too_short", "too_short") and context.get("min_length") == 1:
        return "must not be empty"
    template = _REASONS.get(kind)
    if template is None:
        return "is not valid"
    try:
        return template.format(**context)
    except (KeyError, IndexError):
        return "is not valid"


async def _api_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.code, exc.message, exc.details, exc.headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    codes = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}
    message = {404: "no such endpoint", 405: "method not allowed on this endpoint"}
    headers = dict(exc.headers) if exc.headers else {}
    if exc.status_code == 405:
        # Starlette names the methods of the first route of the path only.
        allowed = allowed_methods(request)
        if allowed:
            headers["Allow"] = ", ".join(allowed)
    return error_response(
        exc.status_code,
        codes.get(exc.status_code, HTTPStatus(exc.status_code).name),
        message.get(exc.status_code, str(exc.detail)),
        headers=headers or None,
    )


def allowed_methods(request: Request) -> list[str]:
    """Every method some route of the application serves at the request's path."""
    scope: Scope = {
        "type": "http",
        "path": request.scope["path"],
        "root_path": request.scope.get("app_root_path", ""),
        "method": request.method,
    }
    found: set[str] = set()

    def collect(routes: Sequence[BaseRoute], scope: Scope) -> None:
        for route in routes:
            match, child = route.matches(scope)
            if match is Match.NONE:
                continue
            if isinstance(route, Route) and route.methods:
                found.update(route.methods)
            elif isinstance(route, Mount) and route.routes:
                collect(route.routes, {**scope, **child})
            elif isinstance(route, Mount):
                # A mounted app without routes (static files) may say what it serves.
                found.update(getattr(route.app, "methods", ()))

    collect(getattr(request.app, "routes", []), scope)
    return sorted(found)


async def _update_failed(request: Request, exc: Exception) -> Response:
    """A workflow update failed outside a service (which turns the catalogued codes into
    domain errors): the same mapping, through the same catalogue."""
    assert isinstance(exc, WorkflowUpdateFailedError)
    refused = domain_error(exc.cause)
    if refused is None:
        return await _unexpected(request, exc)
    return await _domain_error(request, refused)


async def _workflow_unreachable(request: Request, exc: Exception) -> Response:
    path = redact(request.url.path)
    logger.warning("temporal unavailable on %s %s: %s", request.method, path, exc)
    return error_response(
        503,
        IntentError.TEMPORARILY_UNAVAILABLE,
        "the service could not reach its workflow engine; retry the request",
        headers=_RETRY_LATER,
    )


async def _database_unreachable(request: Request, exc: Exception) -> Response:
    """The database refused a connection or lost it (stopped, restarting, failing over),
    or the pool had none free in time: the same request may succeed in a moment. Other
    database errors (a constraint, a bug) stay unexpected."""
    assert isinstance(exc, DBAPIError | PoolTimeout)
    lost = isinstance(exc, OperationalError | InterfaceError | PoolTimeout) or bool(
        getattr(exc, "connection_invalidated", False)
    )
    if not lost:
        return await _unexpected(request, exc)
    path = redact(request.url.path)
    # The driver's words (host, user) are for the operators' logs only.
    logger.warning("database unavailable on %s %s: %s", request.method, path, type(exc).__name__)
    return error_response(
        503,
        IntentError.TEMPORARILY_UNAVAILABLE,
        "the service could not reach its database; retry the request",
        headers=_RETRY_LATER,
    )


# HTTP status of each kind of refusal of an application service (ramp/errors.py).
DOMAIN_ERROR_STATUS: dict[type[DomainError], int] = {
    InvalidInput: 400,
    Refused: 400,
    NotAuthenticated: 401,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    Unprocessable: 422,
    Throttled: 429,
    ProviderFailed: 502,
    Unavailable: 503,
}
# The `WWW-Authenticate` challenge of each kind of proof a 401 asks for.
CHALLENGES = {
    "SIWE": 'SIWE realm="ramp"',
    "Signature": 'Signature realm="provider-webhooks"',
    "ADMIN": 'Bearer realm="ramp-admin"',
}
_RETRY_LATER = {"Retry-After": "1"}


async def _domain_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, DomainError)
    status = next((s for kind, s in DOMAIN_ERROR_STATUS.items() if isinstance(exc, kind)), None)
    if status is None:
        return await _unexpected(request, exc)
    headers = (
        {"WWW-Authenticate": CHALLENGES[exc.scheme]} if isinstance(exc, NotAuthenticated) else None
    )
    if isinstance(exc, Unavailable):
        headers = _RETRY_LATER
    if isinstance(exc, Throttled):
        headers = {"Retry-After": str(exc.retry_after_seconds)}
    return error_response(status, exc.code, exc.message, exc.details, headers)


async def _endpoint_refused(request: Request, exc: Exception) -> Response:
    pointer = getattr(exc, "pointer", None)
    details = {"fields": [{"pointer": pointer, "reason": str(exc)}]} if pointer else None
    return error_response(400, WebhookError.INVALID_WEBHOOK_ENDPOINT, str(exc), details)


async def _unexpected(request: Request, exc: Exception) -> Response:
    # The client gets the envelope only. Starlette re-raises after this handler so the
    # server logs the trace; this line adds which request failed. Called outside the
    # request id's middleware (Starlette's outermost one): the id is the scope's.
    path = redact(request.url.path)  # a setup link's path is its token
    request_id = request_id_of(request.scope)
    with context.bound(request=request_id):
        logger.error("unhandled %s on %s %s", type(exc).__name__, request.method, path)
        response = error_response(500, "INTERNAL_ERROR", "an unexpected error occurred")
    if request_id is not None:
        response.headers.setdefault(REQUEST_ID_HEADER, request_id)
    return response


EXCEPTION_HANDLERS: dict[Any, ExceptionHandler] = {
    ApiError: _api_error,
    DomainError: _domain_error,
    HTTPException: _http_error,
    WorkflowUpdateFailedError: _update_failed,
    WorkflowUpdateRPCTimeoutOrCancelledError: _workflow_unreachable,
    RPCError: _workflow_unreachable,
    DBAPIError: _database_unreachable,
    PoolTimeout: _database_unreachable,
    EndpointRefused: _endpoint_refused,
    Exception: _unexpected,
}
