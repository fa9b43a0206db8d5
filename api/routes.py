"""Every route of the API, in one place."""

from __future__ import annotations

from starlette.routing import BaseRoute, Mount, Route

from api.catalog import get_requirements, list_providers, list_supported_currencies
from api.customers import create_customer
from api.external_accounts import create_external_accounts
from api.health import healthz
from api.openapi import openapi_json
from api.walletpay import issue_nonce, verify_challenge

V1: list[BaseRoute] = [
    Route("/walletpay/auth/nonce", issue_nonce, methods=["GET"]),
    Route("/walletpay/auth/challenge", verify_challenge, methods=["POST"]),
    Route("/customers", create_customer, methods=["POST"]),
    Route("/currencies/supported", list_supported_currencies, methods=["GET"]),
    Route("/providers", list_providers, methods=["GET"]),
    Route("/external-accounts/requirements", get_requirements, methods=["GET"]),
    Route("/customers/external-accounts", create_external_accounts, methods=["POST"]),
    Route("/openapi.json", openapi_json, methods=["GET"]),
]

ROUTES: list[BaseRoute] = [
    Route("/healthz", healthz, methods=["GET"]),
    Mount("/v1", routes=V1),
]
