"""Request bodies in the OpenAPI document: their schema, and the limits every body has.

The limits are the ones the API enforces (api/middleware.py for bytes, each route's own,
api/body.py for the parse), written both in prose and as `x-maxBytes` / `x-maxDepth` so
that a program (and our tests) can read them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from api.body import MAX_JSON_DEPTH
from ramp.onboarding.forms import SUBMISSION_MODELS, AnySubmission


def request_body(model: type[BaseModel], required: bool, max_bytes: int) -> dict[str, Any]:
    description = (
        f"A JSON object in UTF-8 (`Content-Type: application/json`), at most {max_bytes} "
        f"bytes (413 beyond), objects and arrays nested at most {MAX_JSON_DEPTH} levels "
        "deep (the body itself is level 1). Refused with 400 INVALID_JSON: duplicate keys, "
        "NaN, Infinity and numbers beyond a double (1e309), unpaired surrogate escapes "
        "(`\\udfff`), NUL (`\\u0000`), other encodings than UTF-8 and a byte order mark."
    )
    if not required:
        description += " The body may be left out."
    return {
        "required": required,
        "description": description,
        "x-maxBytes": max_bytes,
        "x-maxDepth": MAX_JSON_DEPTH,
        "content": {"application/json": {"schema": _schema(model)}},
    }


def _schema(model: type[BaseModel]) -> dict[str, Any]:
    if model is not AnySubmission:
        return {"$ref": f"#/components/schemas/{model.__name__}"}
    # One body per requirement code (the path's stepCode); exactly one of them fits.
    return {
        "oneOf": [
            {
                "title": code,
                "description": f"The body when stepCode is {code}",
                "$ref": f"#/components/schemas/{submission.__name__}",
            }
            for code, submission in SUBMISSION_MODELS.items()
        ]
    }
