"""Reading a JSON request body into a request model, with envelope errors.

Every body of the API goes through `read_json`, which parses strictly: UTF-8 only,
duplicate keys, non-finite numbers, lone surrogates and NUL refused, nesting bounded.
What it lets through can be stored and served back on both databases.
"""

from __future__ import annotations

import json
import math
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import Request

from api.errors import ApiError, bad_request, json_pointer, validation_details

Body = TypeVar("Body", bound=BaseModel)

# Objects and arrays nested in one another, the body itself being level 1. Our deepest
# form (onboarding KYC_BASIC: idDocument.file.data) is 3 levels; free-form `metadata` of
# customers and accounts gets what is left.
MAX_JSON_DEPTH = 10


class _Refused(Exception):
    def __init__(self, pointer: str, reason: str) -> None:
        super().__init__(reason)
        self.pointer = pointer
        self.reason = reason


class _Pairs(list[tuple[str, Any]]):
    """An object's members as parsed, before duplicates are checked."""


async def read_json(request: Request, model: type[Body]) -> Body:
    return validate_body(model, await read_json_object(request))


async def read_json_object(request: Request) -> dict[str, Any]:
    """The body as a JSON object, before any model reads it (for a route whose model
    depends on the body: `POST /intent` with its accounts inline or by id)."""
    content_type = request.headers.get("content-type", "")
    media_type, _, parameters = content_type.partition(";")
    if media_type.strip().lower() != "application/json" or not _utf8_charset(parameters):
        raise ApiError(
            415,
            "UNSUPPORTED_MEDIA_TYPE",
            "request body must be JSON in UTF-8 (Content-Type: application/json)",
        )
    data = parse_json(await request.body())
    if not isinstance(data, dict):
        raise bad_request("INVALID_JSON", "request body must be a JSON object")
    return data


def validate_body(model: type[Body], data: dict[str, Any]) -> Body:
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise bad_request(
            "VALIDATION_ERROR", "request body is invalid", validation_details(error)
        ) from error


def parse_json(raw: bytes) -> Any:
    """`raw` as a JSON value, or a 400 INVALID_JSON naming what is wrong, and where."""
    try:
        # Decoded here: json.loads would also guess UTF-16 and UTF-32. A BOM is refused.
        text = raw.decode("utf-8")
        parsed = json.loads(
            text,
            object_pairs_hook=_Pairs,
            parse_constant=_refuse_constant,
            parse_float=_finite_float,
        )
    except UnicodeDecodeError as error:
        raise bad_request("INVALID_JSON", "request body must be UTF-8") from error
    except _NonFinite as error:
        raise bad_request("INVALID_JSON", f"request body has {error}") from error
    except RecursionError as error:
        # Far deeper than the limit: the parser gave up before the walk below could.
        raise bad_request(
            "INVALID_JSON", f"request body must not nest deeper than {MAX_JSON_DEPTH} levels"
        ) from error
    except ValueError as error:
        raise bad_request("INVALID_JSON", "request body is not valid JSON") from error
    try:
        return _checked(parsed, "", 1)
    except _Refused as refused:
        # The pointer may name the refused key itself: written as its escape, \udfff.
        pointer = refused.pointer.encode("utf-8", "backslashreplace").decode("utf-8")
        raise bad_request(
            "INVALID_JSON",
            f"request body is not acceptable JSON: {refused.reason}",
            {"fields": [{"pointer": pointer or "/", "reason": refused.reason}]},
        ) from None


def _checked(value: Any, pointer: str, depth: int) -> Any:
    """`value` with its objects as dicts, once every rule holds (the walk stops at the
    depth limit, so it recurses at most MAX_JSON_DEPTH levels)."""
    if isinstance(value, str):
        _check_text(value, pointer)
        return value
    if not isinstance(value, list):
        return value  # numbers (finite, checked while parsing), booleans, null
    if depth > MAX_JSON_DEPTH:
        raise _Refused(pointer, f"must not nest deeper than {MAX_JSON_DEPTH} levels")
    if not isinstance(value, _Pairs):
        return [_checked(item, f"{pointer}/{index}", depth + 1) for index, item in enumerate(value)]
    members: dict[str, Any] = {}
    for key, member in value:
        at = f"{pointer}/{json_pointer(key)}"
        _check_text(key, at)
        if key in members:
            raise _Refused(at, "is a duplicate key")
        members[key] = _checked(member, at, depth + 1)
    return members


def _check_text(text: str, pointer: str) -> None:
    if "\x00" in text:
        # No field of ours may hold NUL, and PostgreSQL text cannot store it.
        raise _Refused(pointer, "must not contain NUL characters")
    if not text.isascii() and any("\ud800" <= char <= "\udfff" for char in text):
        # An unpaired \ud800-\udfff escape: not a character, so not encodable as UTF-8.
        raise _Refused(pointer, "must not contain unpaired surrogate escapes")


def _utf8_charset(parameters: str) -> bool:
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        charset = value.strip().strip('"').lower()
        if name.strip().lower() == "charset" and charset not in ("utf-8", "utf8"):
            return False
    return True


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON")


class _NonFinite(ValueError):
    pass


def _finite_float(literal: str) -> float:
    number = float(literal)
    if not math.isfinite(number):
        # 1e309 is valid JSON but no double: it would be stored as Infinity, which
        # PostgreSQL's json refuses and JSON cannot write back.
        raise _NonFinite(f"a number out of range ({literal[:20]})")
    return number
