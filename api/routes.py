"""Every route of the API, in one place, each with its OpenAPI operation (api/operations.py)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route

from api import schemas
from api.catalog import (
    NO_PROVIDER_HINT_HEADERS,
    get_requirements,
    list_providers,
    list_supported_currencies,
)
from api.client_routes import CLIENT_ROUTES, QUOTE_ROUTES
from api.customers import create_customer
from api.dashboard.admin_routes import ADMIN_ROUTES
from api.dashboard.page_routes import DASHBOARD
from api.event_routes import EVENT_ROUTES
from api.external_accounts import create_external_accounts
from api.health import healthz, readyz
from api.idempotency import idempotent
from api.intents import (
    create_intent,
    execute_intent,
    get_intent,
    list_intents,
)
from api.onboarding import answer_consent, get_onboarding, submit_step
from api.onboarding_page import OnboardingAssets, favicon, onboarding_page
from api.operations import (
    CURSOR,
    IDEMPOTENCY_KEY,
    LIMIT,
    REPLAYED_HEADERS,
    ApiRoute,
    Operation,
    path_parameter,
    query_currency,
    query_filter,
)
from api.project_settings import get_onboarding_origins, put_onboarding_origins
from api.provider_routes import PROVIDER_ROUTES
from api.reference import REFERENCE_ROUTES
from api.routing import ROUTING_ROUTES
from api.sandbox_routes import SANDBOX_ROUTES
from api.signing_routes import SIGNING_ROUTES
from api.walletpay import issue_nonce, verify_challenge
from api.webhooks import (
    create_endpoint,
    delete_endpoint,
    get_delivery,
    list_deliveries,
    list_endpoints,
    recover_endpoint,
    redeliver,
    update_endpoint,
)
from ramp.onboarding.forms import MAX_SUBMISSION_BYTES, AnySubmission


async def openapi_json(request: Request) -> Response:
    # Built once by create_app from the table below (api.openapi reads this module).
    return JSONResponse(request.app.state.openapi)


V1: list[BaseRoute] = [
    ApiRoute(
        "GET",
        "/walletpay/auth/nonce",
        issue_nonce,
        Operation(
            "issueWalletNonce",
            "A single-use nonce for a Sign-In with Ethereum message (plain text)",
            auth=None,
            status=200,
            response="text",
            limited_per_address=True,
        ),
    ),
    ApiRoute(
        "POST",
        "/walletpay/auth/challenge",
        verify_challenge,
        Operation(
            "verifyWalletChallenge",
            "Verify a signed SIWE message; returns a token for `subject_token`",
            auth=None,
            status=200,
            request=schemas.WalletChallenge,
            response=schemas.WalletToken,
            errors=(400, 401),
            limited_per_address=True,
        ),
    ),
    ApiRoute(
        "POST",
        "/customers",
        idempotent(create_customer, "basic"),
        Operation(
            "createCustomer",
            "Create or retrieve a customer (201 created, 200 retrieved) with a fresh access token",
            auth="basic",
            status=201,
            request=schemas.CreateCustomer,
            response=schemas.CustomerResource,
            parameters=(IDEMPOTENCY_KEY,),
            errors=(400, 401, 409, 422),
            also=(200,),
            headers=REPLAYED_HEADERS,
        ),
    ),
    ApiRoute(
        "GET",
        "/currencies/supported",
        list_supported_currencies,
        Operation(
            "listSupportedRoutes",
            "Routes available to the project, with the providers serving each",
            auth="basic",
            status=200,
            response="list",
            item=schemas.RouteResource,
            headers=NO_PROVIDER_HINT_HEADERS,
            errors=(401,),
        ),
    ),
    ApiRoute(
        "GET",
        "/providers",
        list_providers,
        Operation(
            "listProviders",
            "Providers available to the project, with their capabilities",
            auth="basic",
            status=200,
            response="list",
            item=schemas.ProviderResource,
            headers=NO_PROVIDER_HINT_HEADERS,
            errors=(401,),
        ),
    ),
    ApiRoute(
        "GET",
        "/external-accounts/requirements",
        get_requirements,
        Operation(
            "getAccountRequirements",
            "JSON Schemas (draft 2020-12) of the source and destination accounts of a route",
            auth="basic",
            status=200,
            response=schemas.RequirementsResource,
            parameters=(
                query_currency("src", "Source currency code"),
                query_currency("dest", "Destination currency code"),
            ),
            errors=(400, 401),
        ),
    ),
    ApiRoute(
        "POST",
        "/customers/external-accounts",
        idempotent(create_external_accounts, "bearer"),
        Operation(
            "createExternalAccounts",
            "Register the customer's source and destination accounts, together",
            auth="bearer",
            status=201,
            request=schemas.CreateExternalAccounts,
            response=schemas.ExternalAccountPair,
            parameters=(IDEMPOTENCY_KEY,),
            errors=(400, 401, 409, 422),
            headers=REPLAYED_HEADERS,
        ),
    ),
    ApiRoute(
        "POST",
        "/intent",
        create_intent,
        Operation(
            "createIntent",
            "Create a payment intent: provider selection, compliance plan and, when every "
            "requirement is already satisfied, the transaction; the accounts by id, or "
            "inline (registered as POST /customers/external-accounts would)",
            auth="bearer",
            status=201,
            request=schemas.CreateIntentBody,
            response=schemas.IntentEnvelope,
            parameters=(IDEMPOTENCY_KEY,),
            errors=(400, 401, 422, 502, 503),
            headers=REPLAYED_HEADERS,
        ),
    ),
    ApiRoute(
        "GET",
        "/intent",
        list_intents,
        Operation(
            "listIntents",
            "The customer's intents, newest first; the next page's URL is in the `Link` header",
            auth="bearer",
            status=200,
            response="list",
            item=schemas.IntentEnvelope,
            parameters=(LIMIT, CURSOR),
            errors=(400, 401),
            headers=(("Link", 'The next page: `</v1/intent?limit=N&cursor=...>; rel="next"`'),),
        ),
    ),
    *QUOTE_ROUTES,
    ApiRoute(
        "GET",
        "/intent/{id}",
        get_intent,
        Operation(
            "getIntent",
            "One intent of the customer: status, compliance plan, money movement plan, transaction",
            auth="bearer",
            status=200,
            response=schemas.IntentEnvelope,
            parameters=(path_parameter("id", "Intent id"),),
            errors=(401, 404),
        ),
    ),
    ApiRoute(
        "POST",
        "/intent/{intentId}/transaction",
        idempotent(execute_intent, "bearer"),
        Operation(
            "createIntentTransaction",
            "Create the transaction of an intent whose compliance plan is complete (once)",
            auth="bearer",
            status=201,
            request=schemas.ExecuteIntent,
            body_required=False,
            response=schemas.IntentEnvelope,
            parameters=(path_parameter("intentId", "Intent id"), IDEMPOTENCY_KEY),
            errors=(400, 401, 404, 409, 422, 502, 503),
            headers=REPLAYED_HEADERS,
        ),
    ),
    # What API clients expect beyond the spec (api/client_routes.py, api/event_routes.py).
    *CLIENT_ROUTES,
    *EVENT_ROUTES,
    *PROVIDER_ROUTES,
    *SIGNING_ROUTES,
    # Sandbox only (404 in production): stand-ins for providers and verification.
    *SANDBOX_ROUTES,
    *ROUTING_ROUTES,
    ApiRoute(
        "POST",
        "/webhooks/endpoints",
        idempotent(create_endpoint, "basic"),
        Operation(
            "createWebhookEndpoint",
            "Add a webhook endpoint: where the project's events go, and which events",
            auth="basic",
            status=201,
            request=schemas.CreateWebhookEndpoint,
            response=schemas.WebhookEndpointResource,
            parameters=(IDEMPOTENCY_KEY,),
            errors=(400, 401, 409, 422),
            headers=REPLAYED_HEADERS,
        ),
    ),
    ApiRoute(
        "GET",
        "/webhooks/endpoints",
        list_endpoints,
        Operation(
            "listWebhookEndpoints",
            "The project's webhook endpoints, oldest first",
            auth="basic",
            status=200,
            response="list",
            item=schemas.WebhookEndpointResource,
            errors=(401,),
        ),
    ),
    ApiRoute(
        "PATCH",
        "/webhooks/endpoints/{id}",
        update_endpoint,
        Operation(
            "updateWebhookEndpoint",
            "Change an endpoint's URL, event types, description, or enable/disable it",
            auth="basic",
            status=200,
            request=schemas.UpdateWebhookEndpoint,
            response=schemas.WebhookEndpointResource,
            parameters=(path_parameter("id", "Webhook endpoint id"),),
            errors=(400, 401, 404),
        ),
    ),
    ApiRoute(
        "DELETE",
        "/webhooks/endpoints/{id}",
        delete_endpoint,
        Operation(
            "deleteWebhookEndpoint",
            "Remove an endpoint; its deliveries stay in the log, pending ones are cancelled",
            auth="basic",
            status=204,
            response=None,
            parameters=(path_parameter("id", "Webhook endpoint id"),),
            errors=(401, 404),
        ),
    ),
    ApiRoute(
        "GET",
        "/webhooks/deliveries",
        list_deliveries,
        Operation(
            "listWebhookDeliveries",
            "The delivery log, newest first, each delivery with its attempts; the next page's "
            "URL is in the `Link` header",
            auth="basic",
            status=200,
            response="list",
            item=schemas.WebhookDeliveryResource,
            parameters=(
                LIMIT,
                CURSOR,
                query_filter("status", "Delivery status", "DeliveryStatus"),
                query_filter("eventType", "Event type", "WebhookEventType"),
                query_filter("endpointId", "Webhook endpoint id"),
                query_filter("intentId", "Intent id"),
                query_filter(
                    "eventId", "Event id (`eventId` of the envelope, `webhook-id` header)"
                ),
            ),
            errors=(400, 401),
            headers=(("Link", 'The next page: `<...?limit=N&cursor=...>; rel="next"`'),),
        ),
    ),
    ApiRoute(
        "GET",
        "/webhooks/deliveries/{id}",
        get_delivery,
        Operation(
            "getWebhookDelivery",
            "One delivery with its attempts",
            auth="basic",
            status=200,
            response=schemas.WebhookDeliveryResource,
            parameters=(path_parameter("id", "Webhook delivery id"),),
            errors=(401, 404),
        ),
    ),
    ApiRoute(
        "POST",
        "/webhooks/deliveries/{id}/redeliver",
        redeliver,
        Operation(
            "redeliverWebhook",
            "Send a delivery's event again, once, as a new delivery (202: on its way)",
            auth="basic",
            status=202,
            response=schemas.WebhookDeliveryResource,
            parameters=(path_parameter("id", "Webhook delivery id"),),
            errors=(401, 404, 409, 503),
        ),
    ),
    ApiRoute(
        "POST",
        "/webhooks/endpoints/{id}/recover",
        recover_endpoint,
        Operation(
            "recoverWebhookEndpoint",
            "Send again every event whose deliveries to the endpoint since a time all failed "
            "(exhausted, gone or cancelled), each as a new delivery on the full retry "
            "schedule (202: on their way); up to 10000 events a call, call again for more",
            auth="basic",
            status=202,
            response=schemas.WebhookRecoveryResource,
            parameters=(
                path_parameter("id", "Webhook endpoint id"),
                {
                    "name": "since",
                    "in": "query",
                    "required": True,
                    "description": "ISO 8601 time with its offset: deliveries created since",
                    "schema": {"type": "string", "format": "date-time"},
                },
            ),
            errors=(400, 401, 404, 409),
        ),
    ),
    # Hosted onboarding: its JSON API (onboarding token) and the project's setting (Basic).
    ApiRoute(
        "GET",
        "/onboarding/{intentId}",
        get_onboarding,
        Operation(
            "getOnboarding",
            "Hosted onboarding: the intent's compliance plan as its customer sees it, with the "
            "form of each step and, once it exists, the transaction's deposit instructions",
            auth="onboarding",
            status=200,
            response=schemas.OnboardingResource,
            parameters=(path_parameter("intentId", "Intent id"),),
            errors=(401, 404),
        ),
    ),
    ApiRoute(
        "POST",
        "/onboarding/{intentId}/steps/{stepCode}",
        submit_step,
        Operation(
            "submitOnboardingStep",
            "Hosted onboarding: submit the current step (the body is the form of its "
            "requirement code); answers with the onboarding as the intent's workflow left it",
            auth="onboarding",
            status=200,
            request=AnySubmission,
            response=schemas.OnboardingResource,
            parameters=(
                path_parameter("intentId", "Intent id"),
                path_parameter("stepCode", "Requirement code"),
            ),
            errors=(400, 401, 404, 409, 503),
            # A step may carry a document.
            max_body_bytes=MAX_SUBMISSION_BYTES,
        ),
    ),
    ApiRoute(
        "POST",
        "/onboarding/{intentId}/consent",
        answer_consent,
        Operation(
            "answerOnboardingConsent",
            "Hosted onboarding: the customer's answer to sharing what they gave another "
            "provider (an entry of `sharing`) with this intent's provider; once granted, "
            "those fields are not asked, and a step they fill entirely is submitted",
            auth="onboarding",
            status=200,
            request=schemas.OnboardingConsent,
            response=schemas.OnboardingResource,
            parameters=(path_parameter("intentId", "Intent id"),),
            errors=(400, 401, 404, 409, 503),
        ),
    ),
    ApiRoute(
        "GET",
        "/project/onboarding-origins",
        get_onboarding_origins,
        Operation(
            "getOnboardingOrigins",
            "Origins allowed to embed the hosted onboarding page (and to receive its messages)",
            auth="basic",
            status=200,
            response=schemas.OnboardingOriginsResource,
            errors=(401,),
        ),
    ),
    ApiRoute(
        "PUT",
        "/project/onboarding-origins",
        put_onboarding_origins,
        Operation(
            "setOnboardingOrigins",
            "Replace the origins allowed to embed the hosted onboarding page",
            auth="basic",
            status=200,
            request=schemas.OnboardingOrigins,
            response=schemas.OnboardingOriginsResource,
            errors=(400, 401),
        ),
    ),
    # The dashboard's admin API (api/dashboard/admin_routes.py).
    *ADMIN_ROUTES,
    Route("/openapi.json", openapi_json, methods=["GET"]),
]

ROUTES: list[BaseRoute] = [
    Route("/healthz", healthz, methods=["GET"]),
    Route("/readyz", readyz, methods=["GET"]),
    Route("/favicon.ico", favicon, methods=["GET"]),
    # The hosted onboarding page behind `frontendUrl` (HTML), and its static files.
    Mount("/onboarding/assets", app=OnboardingAssets()),
    Route("/onboarding/{intentId}", onboarding_page, methods=["GET"]),
    # The API reference (/v1/docs, api/reference.py): before the API's own routes.
    *REFERENCE_ROUTES,
    Mount("/v1", routes=V1),
    # The dashboard's pages (api/dashboard/page_routes.py).
    *DASHBOARD,
]
