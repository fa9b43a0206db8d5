"""The OpenAPI 3.1 description of the API, generated from the request/response models.

Built from the routes of `api.routes`: each carries its `Operation` (api/operations.py).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from api import schemas
from api.openapi_bodies import request_body
from api.openapi_glossary import describe_fields
from api.operations import ApiRoute, Operation, body_limit
from api.routes import V1
from ramp.catalog import Rail
from ramp.config import Settings
from ramp.error_meanings import ERROR_MEANINGS
from ramp.intents.events import WebhookEvent, WebhookEventType
from ramp.onboarding.forms import AnySubmission

DEFAULT_MAX_BODY_BYTES: int = Settings.model_fields["max_body_bytes"].default
# The documented routes: every route of /v1 but the document itself.
OPERATIONS: tuple[ApiRoute, ...] = tuple(route for route in V1 if isinstance(route, ApiRoute))

# 400 on every operation: a URL with control characters is refused before routing
# (INVALID_URL), whatever the operation (found by tests/test_schemathesis.py).
_COMMON_ERRORS = (400, 413, 415, 500)
_RETRY_AFTER = {"description": "Seconds to wait", "schema": {"type": "integer"}}
_REQUEST_ID = {
    "X-Request-Id": {
        "description": "This request's id: the client's own X-Request-Id when sane (1 to 128 "
        "of letters, digits and `._:@/+=-`), else one the service made; errors repeat it as "
        "`requestId`",
        "schema": {"type": "string"},
    }
}
_RATE_LIMIT_HEADERS = {
    f"RateLimit-{name}": {"description": description, "schema": {"type": "integer"}}
    for name, description in (
        ("Limit", "Requests the project may make per window"),
        ("Remaining", "Requests left in the current window"),
        ("Reset", "Seconds until the window closes"),
    )
}


def _response(operation: Operation) -> dict[str, Any]:
    if operation.response is None:
        return {"description": "No content"}
    if operation.response == "text":
        return {"description": "OK", "content": {"text/plain": {"schema": {"type": "string"}}}}
    if operation.response == "list":
        assert operation.item is not None
        schema: dict[str, Any] = {
            "type": "array",
            "items": {"$ref": f"#/components/schemas/{operation.item.__name__}"},
        }
    else:
        schema = {"$ref": f"#/components/schemas/{operation.response.__name__}"}
    return {"description": "OK", "content": {"application/json": {"schema": schema}}}


def _operation(route: ApiRoute, max_body_bytes: int) -> dict[str, Any]:
    operation = route.operation
    error = {
        "description": "Error",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorEnvelope"}}},
    }
    responses: dict[str, Any] = {str(operation.status): _response(operation)}
    if operation.headers:
        responses[str(operation.status)]["headers"] = {
            name: {"description": description, "schema": {"type": "string"}}
            for name, description in operation.headers
        }
    if operation.auth in ("basic", "bearer"):
        # The project's request budget (api/throttling.py).
        responses[str(operation.status)].setdefault("headers", {}).update(_RATE_LIMIT_HEADERS)
    for status in operation.also:
        responses[str(status)] = _response(operation)
    for status in (*operation.errors, *_COMMON_ERRORS):
        if status == 415 and operation.request is None:
            continue
        responses[str(status)] = error
    if operation.auth in ("basic", "bearer") or operation.limited_per_address:
        responses["429"] = {**error, "headers": {"Retry-After": _RETRY_AFTER}}
    # Every answer names its request (api/request_ids.py).
    for code, answer in responses.items():
        responses[code] = {**answer, "headers": {**answer.get("headers", {}), **_REQUEST_ID}}
    body: dict[str, Any] = {
        "operationId": operation.operation_id,
        "summary": operation.summary,
        "security": [{"basicAuth": []}]
        if operation.auth == "basic"
        else [{"bearerAuth": []}]
        if operation.auth == "bearer"
        else [{"onboardingToken": []}]
        if operation.auth == "onboarding"
        else [{"organizationApiKey": []}, {"dashboardSession": [], "csrfToken": []}]
        if operation.auth == "admin"
        else [],
        "responses": responses,
    }
    if operation.parameters:
        body["parameters"] = list(operation.parameters)
    if operation.request is not None:
        body["requestBody"] = request_body(
            operation.request, operation.body_required, body_limit(operation, max_body_bytes)
        )
    return body


@cache
def openapi_document(max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> dict[str, Any]:
    """The document, with the body size limit of the running service."""
    operations = [route.operation for route in OPERATIONS]
    requests = {op.request for op in operations if op.request is not None}
    responses = {
        model
        for op in operations
        for model in (op.item, op.response)
        if isinstance(model, type) and issubclass(model, BaseModel)
    }
    models = [(model, "validation") for model in requests] + [
        (model, "serialization") for model in (*responses, schemas.ErrorEnvelope, WebhookEvent)
    ]
    _, definitions = models_json_schema(
        sorted(models, key=lambda pair: pair[0].__name__),  # type: ignore[arg-type]
        ref_template="#/components/schemas/{model}",
    )
    components: dict[str, Any] = dict(definitions.get("$defs", {}))
    # Documented per step instead (api/openapi_bodies.py): one body per requirement code.
    components.pop(AnySubmission.__name__)
    components["CurrencyCode"] = schemas.CURRENCY_CODE_SCHEMA
    components["Rail"] = {"type": "string", "enum": [rail.value for rail in Rail]}
    describe_fields(components)
    _error_codes(components["ErrorEnvelope"])
    paths: dict[str, Any] = {}
    for route in OPERATIONS:
        paths.setdefault(route.path, {})[route.method.lower()] = _operation(route, max_body_bytes)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Payment ramp orchestration service",
            "version": "1.0.0",
            "description": _DESCRIPTION + _error_table(),
        },
        "servers": [{"url": "/v1"}],
        "paths": paths,
        "webhooks": _webhooks(),
        "components": {
            "schemas": components,
            "securitySchemes": {
                "basicAuth": {
                    "type": "http",
                    "scheme": "basic",
                    "description": "Project client id and secret",
                },
                "bearerAuth": {
                    "type": "http",
                    "scheme": "bearer",
                    "bearerFormat": "JWT",
                    "description": "Customer access token from POST /customers",
                },
                "onboardingToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "bearerFormat": "JWT",
                    "description": "The `token` query parameter of the intent's frontendUrl "
                    "(one intent, short-lived)",
                },
                "dashboardSession": {
                    "type": "apiKey",
                    "in": "cookie",
                    "name": "__Host-ramp_session",
                    "description": "A dashboard login (`ramp_session` on a loopback sandbox)",
                },
                "csrfToken": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "X-CSRF-Token",
                    "description": "The session's CSRF token, on every call that changes state",
                },
                "organizationApiKey": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "An organization API key from the dashboard (role-scoped)",
                },
            },
        },
    }


_DESCRIPTION = (
    "Moves money between fiat and crypto through third-party providers: a project "
    "(Basic auth) creates customers; a customer (Bearer token) registers an account pair "
    "and opens intents, each with its compliance plan and, once compliant, its "
    "transaction. Every error comes in one envelope (ErrorEnvelope) whose `code` is one "
    "of those below. docs/decisions.md gives every convention this API follows.\n\n"
)


def _codes() -> dict[str, str]:
    return {str(code): ERROR_MEANINGS[code] for code in sorted(ERROR_MEANINGS)}


def _error_codes(envelope: dict[str, Any]) -> None:
    """Every code of the envelope and its meaning, for programs (`x-codes`)."""
    envelope["x-codes"] = _codes()
    envelope["properties"]["code"]["description"] += (
        "; every code and its meaning: `x-codes` of this schema, and the table in the "
        "document's description"
    )


def _error_table() -> str:
    rows = "\n".join(f"| `{code}` | {meaning} |" for code, meaning in _codes().items())
    return f"## Error codes\n\n| code | meaning |\n|---|---|\n{rows}\n"


def _webhooks() -> dict[str, Any]:
    """The events a project's endpoints receive: one POST per event, signed (see
    docs/webhooks.md); any 2xx acknowledges."""
    return {
        event_type.value: {
            "post": {
                "summary": _EVENT_SUMMARIES[event_type],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {"$ref": "#/components/schemas/WebhookEvent"}
                        }
                    },
                },
                "parameters": [
                    {"name": name, "in": "header", "required": True, "schema": {"type": "string"}}
                    for name in (
                        "webhook-id",
                        "webhook-timestamp",
                        "webhook-signature",
                        "X-Ramp-Signature",
                        "X-Ramp-Timestamp",
                        "X-Ramp-Event-Type",
                        "X-Ramp-Client-Id",
                    )
                ],
                "responses": {
                    "2XX": {"description": "Acknowledged: the event is not sent again"},
                    "410": {"description": "Gone: the endpoint is disabled"},
                },
            }
        }
        for event_type in WebhookEventType
    }


_EVENT_SUMMARIES = {
    WebhookEventType.INTENT_STATUS_CHANGED: "An intent was created or changed status "
    "(`data`: IntentStatusChanged)",
    WebhookEventType.COMPLIANCE_UPDATED: "A compliance step changed status "
    "(`data`: ComplianceUpdated)",
    WebhookEventType.MONEY_MOVEMENT_UPDATED: "A transaction was created or changed status "
    "(`data`: MoneyMovementUpdated)",
    WebhookEventType.DEPOSIT_UNMATCHED: "Money arrived that the intent cannot take (it had "
    "ended, or the amount differs), or that no intent matches (`intentId` null); refund it "
    "(`data`: DepositUnmatched)",
}
