"""Every route of the API, in one place."""

from __future__ import annotations

from starlette.routing import BaseRoute, Mount, Route

from api.catalog import get_requirements, list_providers, list_supported_currencies
from api.customers import create_customer
from api.external_accounts import create_external_accounts
from api.health import healthz
from api.intents import create_intent, execute_intent, get_intent, list_intents
from api.onboarding import get_onboarding, submit_step
from api.onboarding_page import OnboardingAssets, onboarding_page
from api.openapi import openapi_json
from api.project_settings import get_onboarding_origins, put_onboarding_origins
from api.sandbox import record_step_outcome, report_transaction_event
from api.walletpay import issue_nonce, verify_challenge
from api.webhooks import (
    create_endpoint,
    delete_endpoint,
    get_delivery,
    list_deliveries,
    list_endpoints,
    redeliver,
    update_endpoint,
)

V1: list[BaseRoute] = [
    Route("/walletpay/auth/nonce", issue_nonce, methods=["GET"]),
    Route("/walletpay/auth/challenge", verify_challenge, methods=["POST"]),
    Route("/customers", create_customer, methods=["POST"]),
    Route("/currencies/supported", list_supported_currencies, methods=["GET"]),
    Route("/providers", list_providers, methods=["GET"]),
    Route("/external-accounts/requirements", get_requirements, methods=["GET"]),
    Route("/customers/external-accounts", create_external_accounts, methods=["POST"]),
    Route("/intent", create_intent, methods=["POST"]),
    Route("/intent", list_intents, methods=["GET"]),
    Route("/intent/{id}", get_intent, methods=["GET"]),
    Route("/intent/{intentId}/transaction", execute_intent, methods=["POST"]),
    Route("/webhooks/endpoints", create_endpoint, methods=["POST"]),
    Route("/webhooks/endpoints", list_endpoints, methods=["GET"]),
    Route("/webhooks/endpoints/{id}", update_endpoint, methods=["PATCH"]),
    Route("/webhooks/endpoints/{id}", delete_endpoint, methods=["DELETE"]),
    Route("/webhooks/deliveries", list_deliveries, methods=["GET"]),
    Route("/webhooks/deliveries/{id}", get_delivery, methods=["GET"]),
    Route("/webhooks/deliveries/{id}/redeliver", redeliver, methods=["POST"]),
    # Sandbox only (404 in production): stand-ins for providers and verification.
    Route("/sandbox/transactions/{id}/events", report_transaction_event, methods=["POST"]),
    Route(
        "/sandbox/intents/{intentId}/compliance-steps/{stepCode}",
        record_step_outcome,
        methods=["POST"],
    ),
    # Hosted onboarding: its JSON API (onboarding token) and the project's setting (Basic).
    Route("/onboarding/{intentId}", get_onboarding, methods=["GET"]),
    Route("/onboarding/{intentId}/steps/{stepCode}", submit_step, methods=["POST"]),
    Route("/project/onboarding-origins", get_onboarding_origins, methods=["GET"]),
    Route("/project/onboarding-origins", put_onboarding_origins, methods=["PUT"]),
    Route("/openapi.json", openapi_json, methods=["GET"]),
]

ROUTES: list[BaseRoute] = [
    Route("/healthz", healthz, methods=["GET"]),
    # The hosted onboarding page behind `frontendUrl` (HTML), and its static files.
    Mount("/onboarding/assets", app=OnboardingAssets()),
    Route("/onboarding/{intentId}", onboarding_page, methods=["GET"]),
    Mount("/v1", routes=V1),
]
