"""The OpenAPI 3.1 description of the API, generated from the request/response models.

`OPERATIONS` documents each route of `api.routes`; a test keeps the two in step.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from api import schemas
from api.openapi_bodies import request_body
from api.services import services
from ramp.catalog import Rail
from ramp.config import Settings
from ramp.onboarding.forms import AnySubmission
from ramp.webhooks.events import WebhookEvent, WebhookEventType

DEFAULT_MAX_BODY_BYTES: int = Settings.model_fields["max_body_bytes"].default
Auth = Literal["basic", "bearer", "onboarding"] | None


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    operation_id: str
    summary: str
    auth: Auth
    status: int
    response: type[BaseModel] | Literal["text", "list"] | None
    request: type[BaseModel] | None = None
    item: type[BaseModel] | None = None  # for "list" responses
    parameters: tuple[dict[str, Any], ...] = ()
    errors: tuple[int, ...] = ()
    # Other success statuses with the same body (create-or-retrieve answers 200 too).
    also: tuple[int, ...] = ()
    # Headers of the success response: name -> description.
    headers: tuple[tuple[str, str], ...] = ()
    body_required: bool = True


def _query(name: str, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "query",
        "required": True,
        "description": description,
        "schema": {"$ref": "#/components/schemas/CurrencyCode"},
    }


def _path(name: str, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "path",
        "required": True,
        "description": description,
        "schema": {"type": "string"},
    }


_LIMIT = {
    "name": "limit",
    "in": "query",
    "required": False,
    "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
}
_CURSOR = {
    "name": "cursor",
    "in": "query",
    "required": False,
    "description": 'Opaque; taken from the `Link: <...>; rel="next"` header',
    "schema": {"type": "string"},
}


def _filter(name: str, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "query",
        "required": False,
        "description": description,
        "schema": {"type": "string"},
    }


def _enum_filter(name: str, description: str, schema: str) -> dict[str, Any]:
    return {**_filter(name, description), "schema": {"$ref": f"#/components/schemas/{schema}"}}


_IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "Retrying with the same key (1 to 255 printable characters) returns the "
    "intent created by the first request instead of creating another; a different body "
    "with the same key is a 409.",
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
}


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "GET",
        "/walletpay/auth/nonce",
        "issueWalletNonce",
        "A single-use nonce for a Sign-In with Ethereum message (plain text)",
        auth=None,
        status=200,
        response="text",
    ),
    Operation(
        "POST",
        "/walletpay/auth/challenge",
        "verifyWalletChallenge",
        "Verify a signed SIWE message; returns a token for `subject_token`",
        auth=None,
        status=200,
        request=schemas.WalletChallenge,
        response=schemas.WalletToken,
        errors=(400, 401),
    ),
    Operation(
        "POST",
        "/customers",
        "createCustomer",
        "Create or retrieve a customer (201 created, 200 retrieved) with a fresh access token",
        auth="basic",
        status=201,
        request=schemas.CreateCustomer,
        response=schemas.CustomerResource,
        errors=(400, 401, 409),
        also=(200,),
    ),
    Operation(
        "GET",
        "/currencies/supported",
        "listSupportedRoutes",
        "Routes available to the project, with the providers serving each",
        auth="basic",
        status=200,
        response="list",
        item=schemas.RouteResource,
        errors=(401,),
    ),
    Operation(
        "GET",
        "/providers",
        "listProviders",
        "Providers available to the project, with their capabilities",
        auth="basic",
        status=200,
        response="list",
        item=schemas.ProviderResource,
        errors=(401,),
    ),
    Operation(
        "GET",
        "/external-accounts/requirements",
        "getAccountRequirements",
        "JSON Schemas (draft 2020-12) of the source and destination accounts of a route",
        auth="basic",
        status=200,
        response=schemas.RequirementsResource,
        parameters=(
            _query("src", "Source currency code"),
            _query("dest", "Destination currency code"),
        ),
        errors=(400, 401),
    ),
    Operation(
        "POST",
        "/customers/external-accounts",
        "createExternalAccounts",
        "Register the customer's source and destination accounts, together",
        auth="bearer",
        status=201,
        request=schemas.CreateExternalAccounts,
        response=schemas.ExternalAccountPair,
        errors=(400, 401),
    ),
    Operation(
        "POST",
        "/intent",
        "createIntent",
        "Create a payment intent: provider selection, compliance plan and, when every "
        "requirement is already satisfied, the transaction",
        auth="bearer",
        status=201,
        request=schemas.CreateIntent,
        response=schemas.IntentEnvelope,
        parameters=(_IDEMPOTENCY_KEY,),
        errors=(400, 401, 409, 502, 503),
        headers=(
            (
                "Idempotent-Replayed",
                "`true` when the intent was created by an earlier request with the same "
                "Idempotency-Key",
            ),
        ),
    ),
    Operation(
        "GET",
        "/intent",
        "listIntents",
        "The customer's intents, newest first; the next page's URL is in the `Link` header",
        auth="bearer",
        status=200,
        response="list",
        item=schemas.IntentEnvelope,
        parameters=(_LIMIT, _CURSOR),
        errors=(400, 401),
        headers=(("Link", 'The next page: `</v1/intent?limit=N&cursor=...>; rel="next"`'),),
    ),
    Operation(
        "GET",
        "/intent/{id}",
        "getIntent",
        "One intent of the customer: status, compliance plan, money movement plan, transaction",
        auth="bearer",
        status=200,
        response=schemas.IntentEnvelope,
        parameters=(_path("id", "Intent id"),),
        errors=(401, 404),
    ),
    Operation(
        "POST",
        "/intent/{intentId}/transaction",
        "createIntentTransaction",
        "Create the transaction of an intent whose compliance plan is complete (once)",
        auth="bearer",
        status=201,
        request=schemas.ExecuteIntent,
        body_required=False,
        response=schemas.IntentEnvelope,
        parameters=(_path("intentId", "Intent id"),),
        errors=(400, 401, 404, 502, 503),
    ),
    Operation(
        "POST",
        "/sandbox/transactions/{id}/events",
        "reportSandboxProviderEvent",
        "Sandbox only: report provider progress on a transaction (202; applied asynchronously)",
        auth="basic",
        status=202,
        request=schemas.SandboxProviderEvent,
        response=schemas.ProviderEventAccepted,
        parameters=(_path("id", "Transaction id"),),
        errors=(400, 401, 404, 409, 503),
    ),
    Operation(
        "POST",
        "/sandbox/intents/{intentId}/compliance-steps/{stepCode}",
        "recordSandboxStepOutcome",
        "Sandbox only: report the outcome of the current compliance step (202; applied "
        "asynchronously)",
        auth="basic",
        status=202,
        request=schemas.SandboxStepOutcome,
        response=schemas.StepOutcomeAccepted,
        parameters=(_path("intentId", "Intent id"), _path("stepCode", "Requirement code")),
        errors=(400, 401, 404, 409, 503),
    ),
    Operation(
        "POST",
        "/webhooks/endpoints",
        "createWebhookEndpoint",
        "Add a webhook endpoint: where the project's events go, and which events",
        auth="basic",
        status=201,
        request=schemas.CreateWebhookEndpoint,
        response=schemas.WebhookEndpointResource,
        errors=(400, 401),
    ),
    Operation(
        "GET",
        "/webhooks/endpoints",
        "listWebhookEndpoints",
        "The project's webhook endpoints, oldest first",
        auth="basic",
        status=200,
        response="list",
        item=schemas.WebhookEndpointResource,
        errors=(401,),
    ),
    Operation(
        "PATCH",
        "/webhooks/endpoints/{id}",
        "updateWebhookEndpoint",
        "Change an endpoint's URL, event types, description, or enable/disable it",
        auth="basic",
        status=200,
        request=schemas.UpdateWebhookEndpoint,
        response=schemas.WebhookEndpointResource,
        parameters=(_path("id", "Webhook endpoint id"),),
        errors=(400, 401, 404),
    ),
    Operation(
        "DELETE",
        "/webhooks/endpoints/{id}",
        "deleteWebhookEndpoint",
        "Remove an endpoint; its deliveries stay in the log, pending ones are cancelled",
        auth="basic",
        status=204,
        response=None,
        parameters=(_path("id", "Webhook endpoint id"),),
        errors=(401, 404),
    ),
    Operation(
        "GET",
        "/webhooks/deliveries",
        "listWebhookDeliveries",
        "The delivery log, newest first, each delivery with its attempts; the next page's "
        "URL is in the `Link` header",
        auth="basic",
        status=200,
        response="list",
        item=schemas.WebhookDeliveryResource,
        parameters=(
            _LIMIT,
            _CURSOR,
            _enum_filter("status", "Delivery status", "DeliveryStatus"),
            _enum_filter("eventType", "Event type", "WebhookEventType"),
            _filter("endpointId", "Webhook endpoint id"),
            _filter("intentId", "Intent id"),
            _filter("eventId", "Event id (`eventId` of the envelope, `webhook-id` header)"),
        ),
        errors=(400, 401),
        headers=(("Link", 'The next page: `<...?limit=N&cursor=...>; rel="next"`'),),
    ),
    Operation(
        "GET",
        "/webhooks/deliveries/{id}",
        "getWebhookDelivery",
        "One delivery with its attempts",
        auth="basic",
        status=200,
        response=schemas.WebhookDeliveryResource,
        parameters=(_path("id", "Webhook delivery id"),),
        errors=(401, 404),
    ),
    Operation(
        "POST",
        "/webhooks/deliveries/{id}/redeliver",
        "redeliverWebhook",
        "Send a delivery's event again, once, as a new delivery (202: on its way)",
        auth="basic",
        status=202,
        response=schemas.WebhookDeliveryResource,
        parameters=(_path("id", "Webhook delivery id"),),
        errors=(401, 404, 409, 503),
    ),
    Operation(
        "GET",
        "/onboarding/{intentId}",
        "getOnboarding",
        "Hosted onboarding: the intent's compliance plan as its customer sees it, with the "
        "form of each step and, once it exists, the transaction's deposit instructions",
        auth="onboarding",
        status=200,
        response=schemas.OnboardingResource,
        parameters=(_path("intentId", "Intent id"),),
        errors=(401, 404),
    ),
    Operation(
        "POST",
        "/onboarding/{intentId}/steps/{stepCode}",
        "submitOnboardingStep",
        "Hosted onboarding: submit the current step (the body is the form of its "
        "requirement code); answers with the onboarding as the intent's workflow left it",
        auth="onboarding",
        status=200,
        request=AnySubmission,
        response=schemas.OnboardingResource,
        parameters=(_path("intentId", "Intent id"), _path("stepCode", "Requirement code")),
        errors=(400, 401, 404, 409, 503),
    ),
    Operation(
        "GET",
        "/project/onboarding-origins",
        "getOnboardingOrigins",
        "Origins allowed to embed the hosted onboarding page (and to receive its messages)",
        auth="basic",
        status=200,
        response=schemas.OnboardingOriginsResource,
        errors=(401,),
    ),
    Operation(
        "PUT",
        "/project/onboarding-origins",
        "setOnboardingOrigins",
        "Replace the origins allowed to embed the hosted onboarding page",
        auth="basic",
        status=200,
        request=schemas.OnboardingOrigins,
        response=schemas.OnboardingOriginsResource,
        errors=(400, 401),
    ),
)

_COMMON_ERRORS = (413, 415, 500)
_RETRY_AFTER = {"description": "Seconds to wait", "schema": {"type": "integer"}}
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


def _operation(operation: Operation, max_body_bytes: int) -> dict[str, Any]:
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
    if operation.auth in ("basic", "bearer") or operation.path.startswith("/walletpay/"):
        responses["429"] = {**error, "headers": {"Retry-After": _RETRY_AFTER}}
    body: dict[str, Any] = {
        "operationId": operation.operation_id,
        "summary": operation.summary,
        "security": [{"basicAuth": []}]
        if operation.auth == "basic"
        else [{"bearerAuth": []}]
        if operation.auth == "bearer"
        else [{"onboardingToken": []}]
        if operation.auth == "onboarding"
        else [],
        "responses": responses,
    }
    if operation.parameters:
        body["parameters"] = list(operation.parameters)
    if operation.request is not None:
        body["requestBody"] = request_body(
            operation.request, operation.path, operation.body_required, max_body_bytes
        )
    return body


@cache
def openapi_document(max_body_bytes: int = DEFAULT_MAX_BODY_BYTES) -> dict[str, Any]:
    """The document, with the body size limit of the running service."""
    requests = {op.request for op in OPERATIONS if op.request is not None}
    responses = {
        model
        for op in OPERATIONS
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
    paths: dict[str, Any] = {}
    for operation in OPERATIONS:
        paths.setdefault(operation.path, {})[operation.method.lower()] = _operation(
            operation, max_body_bytes
        )
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Payment ramp orchestration service",
            "version": "1.0.0",
            "description": "See docs/decisions.md for every convention this API follows.",
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
            },
        },
    }


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
}


async def openapi_json(request: Request) -> Response:
    return JSONResponse(openapi_document(services(request).settings.max_body_bytes))
