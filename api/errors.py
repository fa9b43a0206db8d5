"""The one error envelope, and the exception handlers that produce it.

Every error leaves the API as
`{"statusCode", "error", "code", "message", "details"}`; endpoints raise `ApiError`
and never build error responses themselves.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from pydantic import ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ExceptionHandler

from api.schemas import ErrorEnvelope

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
    body = ErrorEnvelope(
        status_code=status,
        error=HTTPStatus(status).phrase,
        code=code,
        message=message,
        details=details or {},
    )
    return JSONResponse(body.model_dump(mode="json"), status_code=status, headers=headers)


def validation_details(error: ValidationError) -> dict[str, Any]:
    """Pydantic errors as the same {pointer, reason} list schema failures use."""
    fields = []
    for item in error.errors(include_url=False, include_input=False):
        pointer = "".join(f"/{part}" for part in item["loc"])
        fields.append({"pointer": pointer, "reason": item["msg"]})
    return {"fields": fields}


async def _api_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.code, exc.message, exc.details, exc.headers)


async def _http_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    codes = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}
    message = {404: "no such endpoint", 405: "method not allowed on this endpoint"}
    return error_response(
        exc.status_code,
        codes.get(exc.status_code, HTTPStatus(exc.status_code).name),
        message.get(exc.status_code, str(exc.detail)),
        headers=dict(exc.headers) if exc.headers else None,
    )


async def _unexpected(request: Request, exc: Exception) -> Response:
    # The client gets the envelope only. Starlette re-raises after this handler so the
    # server logs the trace; this line adds which request failed.
    logger.error("unhandled %s on %s %s", type(exc).__name__, request.method, request.url.path)
    return error_response(500, "INTERNAL_ERROR", "an unexpected error occurred")


EXCEPTION_HANDLERS: dict[Any, ExceptionHandler] = {
    ApiError: _api_error,
    HTTPException: _http_error,
    Exception: _unexpected,
}
