"""Validation of external-account metadata against a route's schema, with violations
as JSON pointers and reasons that never echo the submitted value.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from jsonschema import Draft202012Validator, ValidationError, validators
from pydantic import BaseModel, ConfigDict

from .formats import FORMAT_CHECKER, FORMAT_NAMES


class SchemaViolation(BaseModel):
    model_config = ConfigDict(frozen=True)

    pointer: str  # RFC 6901 JSON pointer into the metadata; "" is the whole document
    reason: str


def validate_account(schema: Mapping[str, Any], metadata: object) -> list[SchemaViolation]:
    """Every way `metadata` violates `schema`, sorted by pointer; [] when it conforms."""
    validator = _compiled(json.dumps(schema, sort_keys=True, separators=(",", ":")))
    violations = {
        violation for error in validator.iter_errors(metadata) for violation in _violations(error)
    }
    return sorted(violations, key=_sort_key)


def _sort_key(violation: SchemaViolation) -> tuple[tuple[tuple[int, int, str], ...], str]:
    # Document order by path segment (array indices numerically), not by escaped text.
    segments = violation.pointer.split("/")[1:]
    parts = tuple(
        (0, int(s), "") if s.isdigit() else (1, 0, s.replace("~1", "/").replace("~0", "~"))
        for s in segments
    )
    return parts, violation.reason


@functools.lru_cache(maxsize=512)
def _ecma_regex(pattern: str) -> re.Pattern[str]:
    # JSON Schema patterns are ECMA-262, where `$` only matches at the very end; Python's
    # `$` also matches before a trailing newline, which would let "021000021\n" through.
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + "\\Z"
    return re.compile(pattern)


def _pattern_keyword(validator: Any, pattern: str, instance: object, schema: Any) -> Any:
    if isinstance(instance, str) and not _ecma_regex(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


# `extend` is untyped in the stubs.
_Validator = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator, {"pattern": _pattern_keyword}
)


@functools.lru_cache(maxsize=256)
def _compiled(canonical_schema: str) -> Any:
    schema = json.loads(canonical_schema)
    Draft202012Validator.check_schema(schema)
    return _Validator(schema, format_checker=FORMAT_CHECKER)


def _pointer(path: Iterable[object]) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def _violations(error: Any) -> list[SchemaViolation]:
    path = list(error.absolute_path)
    keyword = error.validator
    instance = error.instance
    if keyword == "required" and isinstance(instance, dict):
        # Point at the missing field itself, which is what a form needs to highlight.
        missing = [
            name
            for name in error.validator_value
            if name not in instance and error.message == f"{name!r} is a required property"
        ]
        if missing:
            return [SchemaViolation(pointer=_pointer([*path, missing[0]]), reason="is required")]
    if keyword == "additionalProperties" and isinstance(instance, dict):
        known = error.schema.get("properties", {})
        patterns = error.schema.get("patternProperties", {})
        extra = [
            name
            for name in instance
            if name not in known and not any(re.search(p, name) for p in patterns)
        ]
        if extra:
            return [
                SchemaViolation(pointer=_pointer([*path, name]), reason="is not allowed")
                for name in extra
            ]
    reason: str = error.message
    # Reasons avoid echoing the value: account numbers do not belong in error logs.
    if keyword == "pattern":
        reason = f"does not match the pattern {error.validator_value}"
    elif keyword == "minLength":
        reason = f"must be at least {error.validator_value} characters long"
    elif keyword == "maxLength":
        reason = f"must be at most {error.validator_value} characters long"
    elif keyword == "format":
        reason = f"is not a valid {FORMAT_NAMES.get(error.validator_value, error.validator_value)}"
    elif keyword == "type":
        reason = f"must be of type {error.validator_value}"
    elif keyword == "enum":
        reason = "must be one of " + ", ".join(map(str, error.validator_value))
    elif keyword == "const":
        reason = f"must be {error.validator_value}"
    schema_path = list(error.relative_schema_path)
    if "dependentSchemas" in schema_path:
        trigger = schema_path[schema_path.index("dependentSchemas") + 1]
        reason = f"{reason} (required because {trigger} is present)"
    return [SchemaViolation(pointer=_pointer(path), reason=reason)]
