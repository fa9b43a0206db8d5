"""Reading a JSON request body into a request model, with envelope errors."""

from __future__ import annotations

import json
from typing import TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import Request

from api.errors import ApiError, bad_request, validation_details

Body = TypeVar("Body", bound=BaseModel)


async def read_json(request: Request, model: type[Body]) -> Body:
    content_type = request.headers.get("content-type", "")
    if content_type.split(";", 1)[0].strip().lower() != "application/json":
        raise ApiError(
            415,
            "UNSUPPORTED_MEDIA_TYPE",
            "request body must be JSON (Content-Type: application/json)",
        )
    raw = await request.body()
    try:
        # parse_constant refuses NaN/Infinity, which are not JSON.
        data = json.loads(raw, parse_constant=_refuse_constant)
    except (ValueError, UnicodeDecodeError, RecursionError) as error:
        raise bad_request("INVALID_JSON", "request body is not valid JSON") from error
    if b"\\u0000" in raw:
        # No field of ours may hold NUL, and PostgreSQL text cannot store it.
        raise bad_request("INVALID_JSON", "request body must not contain NUL characters")
    if not isinstance(data, dict):
        raise bad_request("INVALID_JSON", "request body must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise bad_request(
            "VALIDATION_ERROR", "request body is invalid", validation_details(error)
        ) from error


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON")
