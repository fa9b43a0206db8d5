"""The OpenAPI document states what the validators enforce, constraint by constraint.

Every constraint the document gives a request body field (type, length, pattern, range,
enum, item count, required, no other fields) is tried against the model that validates
that body, just past the bound (refused at that field) and, where the document allows it,
at the bound (not refused for that reason). The limits of whole bodies (bytes, nesting)
are tried over HTTP.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from pydantic import BaseModel, ValidationError

from api import schemas
from api.dashboard import schemas as admin_schemas
from api.errors import validation_details
from ramp.config import Settings
from ramp.onboarding import forms
from tests.helpers.errors import assert_envelope
from tests.helpers.projects import ProjectCredentials

# About the validators against the document, not the database: one of the two passes runs it.
pytestmark = pytest.mark.either_database

REF = "#/components/schemas/"


@dataclass(frozen=True)
class Probe:
    """One value for one field, and whether the documented constraint refuses it: True,
    False, or (a value at the bound) the reason it must not be refused for."""

    component: str
    field: str
    constraint: str
    value: Any
    refused: bool | str


async def _document(client: httpx.AsyncClient) -> dict[str, Any]:
    response = await client.get("/v1/openapi.json")
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


def _refs(schema: Any) -> Iterator[str]:
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith(REF):
            yield ref[len(REF) :]
        for value in schema.values():
            yield from _refs(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from _refs(item)


def request_components(document: dict[str, Any]) -> list[str]:
    """Every object schema a documented request body uses, nested ones included."""
    components = document["components"]["schemas"]
    pending = [
        name
        for path in document["paths"].values()
        for operation in path.values()
        if "requestBody" in operation
        for name in _refs(operation["requestBody"])
    ]
    seen: list[str] = []
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.append(name)
        pending.extend(_refs(components[name]))
    return sorted(name for name in seen if components[name].get("type") == "object")


def _model(name: str) -> type[BaseModel]:
    model = (
        getattr(schemas, name, None) or getattr(admin_schemas, name, None) or getattr(forms, name)
    )
    assert isinstance(model, type), name
    assert issubclass(model, BaseModel), name
    return model


def _field_schema(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    """The schema of a field's value: the non-null branch, enums resolved."""
    branches = [b for b in schema.get("anyOf", [schema]) if b.get("type") != "null"]
    resolved = branches[0] if len(branches) == 1 else schema
    ref = resolved.get("$ref", "")
    if ref.startswith(REF) and "enum" in components[ref[len(REF) :]]:
        return dict(components[ref[len(REF) :]])
    return resolved


_WRONG_TYPE = {"string": 5, "integer": "5", "boolean": "true", "object": [], "array": {}}


def _value_probes(schema: dict[str, Any]) -> Iterator[tuple[str, Any, bool | str]]:
    kind = schema.get("type")
    if kind in _WRONG_TYPE:
        yield f"type {kind}", _WRONG_TYPE[kind], True
    if "maxLength" in schema:
        yield "maxLength", "a" * (schema["maxLength"] + 1), True
        yield "maxLength", "a" * schema["maxLength"], f"must be at most {schema['maxLength']} c"
    if schema.get("minLength", 0) > 0:
        yield "minLength", "a" * (schema["minLength"] - 1), True
    if "pattern" in schema:
        pattern = re.compile(schema["pattern"])
        for candidate in ("", " ", "\t", "a\x01", "!" * 3, "é" * 3):
            if not pattern.search(candidate) and len(candidate) <= schema.get("maxLength", 99):
                yield "pattern", candidate, True
                break
    for example in schema.get("examples", []):
        yield "examples", example, False
    if "minimum" in schema:
        yield "minimum", schema["minimum"] - 1, True
        yield "minimum", schema["minimum"], f"must be at least {schema['minimum']}"
    if "maximum" in schema:
        yield "maximum", schema["maximum"] + 1, True
        yield "maximum", schema["maximum"], f"must be at most {schema['maximum']}"
    if "enum" in schema or "const" in schema:
        members = schema.get("enum", [schema.get("const")])
        yield "enum", "NOT_A_DOCUMENTED_VALUE", True
        for member in members:
            yield "enum", member, False


def probes(document: dict[str, Any]) -> Iterator[Probe]:
    components = document["components"]["schemas"]
    for name in request_components(document):
        component = components[name]
        if component.get("additionalProperties") is False:
            yield Probe(name, "undocumentedField", "additionalProperties", 1, True)
        for field, raw in component.get("properties", {}).items():
            required = field in component.get("required", [])
            yield Probe(name, field, "required", None, required)
            schema = _field_schema(raw, components)
            for constraint, value, refused in _value_probes(schema):
                yield Probe(name, field, constraint, value, refused)
            if schema.get("type") == "array":
                item = _field_schema(schema.get("items", {}), components)
                filler = "a" * item.get("minLength", 1)
                if "maxItems" in schema:
                    yield Probe(name, field, "maxItems", [filler] * (schema["maxItems"] + 1), True)
                    yield Probe(
                        name,
                        field,
                        "maxItems",
                        [filler] * schema["maxItems"],
                        f"must have at most {schema['maxItems']} items",
                    )
                if schema.get("minItems", 0) > 0:
                    yield Probe(name, field, "minItems", [], True)
                for constraint, value, refused in _value_probes(item):
                    if constraint != "examples":
                        yield Probe(name, f"{field}/0", f"items {constraint}", [value], refused)


def _reasons(model: type[BaseModel], instance: dict[str, Any], pointer: str) -> list[str]:
    try:
        model.model_validate(instance)
    except ValidationError as error:
        fields = validation_details(error)["fields"]
        return [f["reason"] for f in fields if f["pointer"] == pointer]
    return []


async def test_every_documented_constraint_is_the_enforced_one(client: httpx.AsyncClient) -> None:
    document = await _document(client)
    checked = 0
    for probe in probes(document):
        model = _model(probe.component)
        top = probe.field.split("/")[0]
        instance = {} if probe.constraint == "required" else {top: probe.value}
        if probe.constraint == "required":
            reasons = _reasons(model, instance, f"/{top}")
            assert ("is required" in reasons) == probe.refused, probe
        elif probe.refused is True:
            reasons = _reasons(model, instance, f"/{probe.field}")
            assert reasons, probe
        elif probe.refused is False:
            assert _reasons(model, instance, f"/{probe.field}") == [], probe
        else:
            # At the bound other rules of the field may still refuse, not this one.
            reasons = _reasons(model, instance, f"/{probe.field}")
            assert not any(r.startswith(probe.refused) for r in reasons), (probe, reasons)
        checked += 1
    assert checked > 150  # every request body of the API, not a handful


async def test_documented_body_limits_are_the_enforced_ones(
    client: httpx.AsyncClient, project: ProjectCredentials, migrated: Settings
) -> None:
    document = await _document(client)
    customers = document["paths"]["/customers"]["post"]["requestBody"]
    onboarding = document["paths"]["/onboarding/{intentId}/steps/{stepCode}"]["post"]
    assert customers["x-maxBytes"] == migrated.max_body_bytes
    headers = {**project.basic, "Content-Type": "application/json"}

    def sized(size: int) -> bytes:
        prefix = b'{"id": "sized", "metadata": {"pad": "'
        return prefix + b"a" * (size - len(prefix) - 3) + b'"}}'

    at_limit = await client.post(
        "/v1/customers", content=sized(customers["x-maxBytes"]), headers=headers
    )
    assert at_limit.status_code == 201, at_limit.text
    over = await client.post(
        "/v1/customers", content=sized(customers["x-maxBytes"] + 1), headers=headers
    )
    assert_envelope(over, 413, "PAYLOAD_TOO_LARGE")
    step_limit = onboarding["requestBody"]["x-maxBytes"]
    path = "/v1/onboarding/some-intent/steps/KYC_BASIC"
    big = await client.post(path, content=b" " * (step_limit + 1), headers=headers)
    assert_envelope(big, 413, "PAYLOAD_TOO_LARGE")
    within = await client.post(path, content=b" " * step_limit, headers=headers)
    assert within.status_code == 401  # past the size check: the token is what is missing

    depth = customers["x-maxDepth"]
    metadata: Any = "x"
    for _ in range(depth - 1):
        metadata = [metadata]
    deepest = await client.post(
        "/v1/customers", json={"id": "deep", "metadata": {"m": metadata}}, headers=project.basic
    )
    assert deepest.status_code == 400  # one level too many: the body is level 1
    assert_envelope(deepest, 400, "INVALID_JSON")
    fits = await client.post(
        "/v1/customers", json={"id": "deep", "metadata": {"m": metadata[0]}}, headers=project.basic
    )
    assert fits.status_code == 201, fits.text


async def test_body_requirement_is_documented_as_enforced(client: httpx.AsyncClient) -> None:
    document = await _document(client)
    # POST /intent/{intentId}/transaction and /cancel take no body or {} (tests/test_intents.py,
    # tests/test_cancel.py).
    required = {
        path: operation["post"]["requestBody"]["required"]
        for path, operation in document["paths"].items()
        if "requestBody" in operation.get("post", {})
    }
    assert {path for path, needed in required.items() if not needed} == {
        "/intent/{intentId}/transaction",
        "/intent/{intentId}/cancel",
    }


async def test_each_onboarding_step_has_its_own_documented_body(
    client: httpx.AsyncClient,
) -> None:
    document = await _document(client)
    operation = document["paths"]["/onboarding/{intentId}/steps/{stepCode}"]["post"]
    choices = operation["requestBody"]["content"]["application/json"]["schema"]["oneOf"]
    documented = {choice["title"]: choice["$ref"][len(REF) :] for choice in choices}
    assert documented == {code: model.__name__ for code, model in forms.SUBMISSION_MODELS.items()}
    assert "AnySubmission" not in document["components"]["schemas"]
