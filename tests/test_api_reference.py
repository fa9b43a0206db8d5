"""The API reference: `/v1/docs` renders /v1/openapi.json in a real browser under a
strict CSP with nothing loaded from elsewhere, and the document is complete enough to
read (every operation a summary, every field a description, every error code its
meaning, every example valid against its schema)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator
from playwright.async_api import expect

from api.app import create_app
from api.openapi import openapi_document
from ramp.config import Settings
from ramp.error_meanings import ERROR_MEANINGS
from ramp.errors import (
    CancelRefusal,
    Conflict,
    DashboardError,
    DomainError,
    Forbidden,
    IntentError,
    InvalidInput,
    NotAuthenticated,
    OidcError,
    OnboardingError,
    ProviderAccountError,
    ProviderFailed,
    ProviderRefusal,
    ProviderWebhookError,
    Refused,
    RequestError,
    SiweError,
    StepError,
    Throttled,
    ThrottleError,
    Unavailable,
    Unprocessable,
    WebhookError,
)
from tests.helpers.browser import chromium, screenshots_dir, served
from tests.serving import bound_socket

# About the API reference page, not the database: one of the two passes runs it.
pytestmark = [pytest.mark.either_database, pytest.mark.usefixtures("migrated")]


async def test_the_reference_page_and_its_assets_come_from_us_under_a_strict_policy(
    client: httpx.AsyncClient,
) -> None:
    page = await client.get("/v1/docs")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "default-src 'none'" in policy
    assert "script-src 'self';" in policy
    assert "unsafe" not in policy
    assert "frame-ancestors 'none'" in policy
    assert "<script>" not in page.text  # no inline script
    for asset, kind in (
        ("swagger-ui-bundle.js", "text/javascript"),
        ("swagger-ui.css", "text/css"),
        ("docs.js", "text/javascript"),
    ):
        answer = await client.get(f"/v1/docs/assets/{asset}")
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith(kind)
        assert f"/v1/docs/assets/{asset}" in page.text
    assert (await client.get("/v1/docs/assets/index.html")).status_code == 404
    assert (await client.get("/v1/docs/assets/..%2Fopenapi.json")).status_code == 404


async def test_the_reference_renders_every_operation_in_a_browser(migrated: Settings) -> None:
    sock = bound_socket()
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    document = openapi_document()
    # Every operation, and every webhook event.
    operations = sum(len(methods) for methods in document["paths"].values())
    operations += len(document["webhooks"])
    async with served(create_app(migrated), sock), chromium() as browser:
        page = await browser.new_page()
        outside: list[str] = []
        violations: list[str] = []
        page.on(
            "request",
            lambda request: None if request.url.startswith(base) else outside.append(request.url),
        )
        page.on(
            "console",
            lambda message: (
                violations.append(message.text)
                if "Content Security Policy" in message.text
                else None
            ),
        )
        await page.goto(f"{base}/v1/docs")
        await expect(page.locator(".opblock")).to_have_count(operations)
        await expect(page.locator("#operations-default-createIntent")).to_be_visible()
        await page.screenshot(path=screenshots_dir("api_reference") / "docs.png")
    assert outside == []
    assert violations == []


# --- the document ----------------------------------------------------------------------


def _schemas(node: Any, where: str) -> list[tuple[str, dict[str, Any]]]:
    """Every schema object with properties under `node`, with where it is."""
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, dict):
        if isinstance(node.get("properties"), dict):
            found.append((where, node))
        for key, value in node.items():
            found += _schemas(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _schemas(value, f"{where}/{index}")
    return found


def test_every_operation_has_a_summary_and_every_field_a_description() -> None:
    document = openapi_document()
    missing = [
        f"{method.upper()} {path}"
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
        if not operation.get("summary", "").strip()
    ]
    for where, schema in _schemas(document["components"], "#/components"):
        missing += [
            f"{where}/properties/{name}"
            for name, field in schema["properties"].items()
            if not str(field.get("description", "")).strip()
        ]
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            missing += [
                f"{method.upper()} {path} parameter {parameter['name']}"
                for parameter in operation.get("parameters", [])
                if not parameter.get("description", "").strip()
            ]
    assert missing == [], "\n".join(missing)


def test_every_example_is_valid_against_its_schema() -> None:
    document = openapi_document()
    checked = 0
    invalid: list[str] = []
    for where, schema, examples in _examples(document, "#"):
        validator = Draft202012Validator({**schema, "components": document["components"]})
        for example in examples:
            checked += 1
            invalid += [f"{where}: {error.message}" for error in validator.iter_errors(example)]
    assert invalid == [], "\n".join(invalid)
    assert checked >= 20


def _examples(node: Any, where: str) -> list[tuple[str, dict[str, Any], list[Any]]]:
    found: list[tuple[str, dict[str, Any], list[Any]]] = []
    if isinstance(node, dict):
        examples = node.get("examples")
        if isinstance(examples, list) and examples and ("type" in node or "$ref" in node):
            schema = {key: value for key, value in node.items() if key != "examples"}
            found.append((where, schema, examples))
        for key, value in node.items():
            if key != "examples":
                found += _examples(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _examples(value, f"{where}/{index}")
    return found


# --- error codes --------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent
API_ERRORS = ROOT / "api" / "errors.py"
CODE = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
# What builds an error with a literal code: the API's errors and the domain's.
ERROR_BUILDERS = {
    "ApiError",
    "bad_request",
    "unauthorized",
    "error_response",
    "_invalid_subject_token",
    *(kind.__name__ for kind in (InvalidInput, Conflict, Refused, Unprocessable, Unavailable)),
    *(kind.__name__ for kind in (ProviderFailed, Throttled, Forbidden, NotAuthenticated)),
    DomainError.__name__,
}
# The catalogue's families a client can read (ProviderCallError stays inside workflows).
CLIENT_FAMILIES = (
    IntentError, CancelRefusal, RequestError, ThrottleError, StepError, OnboardingError,
    ProviderRefusal, ProviderWebhookError, OidcError, SiweError, ProviderAccountError,
    WebhookError, DashboardError,
)  # fmt: skip


def _raised_codes() -> set[str]:
    """Every code of the catalogue's families, and every literal code given to an error
    (or set as `code = "..."`) in api/ and ramp/."""
    codes = {member.value for family in CLIENT_FAMILIES for member in family}
    for package in ("api", "ramp"):
        for module in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
                values: list[ast.expr] = []
                if isinstance(node, ast.Call):
                    function = node.func
                    name = getattr(function, "id", None) or getattr(function, "attr", None)
                    if name in ERROR_BUILDERS:
                        values = [*node.args[:3], *(k.value for k in node.keywords)]
                elif (
                    isinstance(node, ast.Assign | ast.Dict) and module == ROOT / "api" / "errors.py"
                ):
                    values = [node.value] if isinstance(node, ast.Assign) else list(node.values)
                elif isinstance(node, ast.Assign) and any(
                    getattr(target, "id", None) == "code" for target in node.targets
                ):
                    values = [node.value]
                for value in values:
                    for constant in ast.walk(value):
                        text = constant.value if isinstance(constant, ast.Constant) else None
                        if isinstance(text, str) and CODE.match(text):
                            codes.add(text)
    return codes


def test_every_error_code_has_its_meaning_in_the_reference() -> None:
    raised = _raised_codes()
    assert {"SCHEMA_VALIDATION_FAILED", "INVALID_JSON", "METHOD_NOT_ALLOWED"} <= raised
    meanings = {str(code) for code in ERROR_MEANINGS}
    assert sorted(raised - meanings) == [], "codes without a meaning (ramp/error_meanings.py)"
    assert sorted(meanings - raised) == [], "meanings of no code"
    document = openapi_document()
    assert document["components"]["schemas"]["ErrorEnvelope"]["x-codes"].keys() == meanings
    for code in meanings:
        assert f"| `{code}` |" in document["info"]["description"]
