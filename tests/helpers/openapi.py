"""Validation of a response body against a component of the OpenAPI document."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator


def conforms(document: dict[str, Any], component: str, instance: object) -> None:
    schema = {"$ref": f"#/components/schemas/{component}", "components": document["components"]}
    errors = list(Draft202012Validator(schema).iter_errors(instance))
    assert errors == [], [error.message for error in errors]
