"""The intent, onboarding and sandbox handlers hold no database connection while a
request body is on its way: they authenticate in a session of their own, read and parse
the body, and only then call the service, which opens the sessions it needs. A slow
client would otherwise keep one of the pool's few connections per request."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from api.app import create_app
from ramp.config import Settings
from tests.helpers.connections import ConnectionCount, held_while_the_body_arrives, watched
from tests.helpers.onboarding import TERMS, start_onboarding
from tests.helpers.payments import register_accounts
from tests.helpers.projects import ProjectCredentials, bearer, make_customer
from tests.helpers.servers import serve

pytestmark = pytest.mark.usefixtures("worker")

ENDPOINTS = ["create", "execute", "sandbox-step", "sandbox-event", "onboarding-submit"]


async def _request(
    http: httpx.AsyncClient, project: ProjectCredentials, endpoint: str
) -> tuple[str, dict[str, Any], dict[str, str]]:
    """(path, body, headers) of a request to `endpoint` that its handler reads whole."""
    token = (await make_customer(http, project, f"slow-{uuid.uuid4()}"))["access_token"]
    accounts = await register_accounts(http, token)
    if endpoint == "create":
        body = {"srcExternalAccountId": accounts[0], "destExternalAccountId": accounts[1]}
        headers = {**bearer(token), "Idempotency-Key": str(uuid.uuid4())}
        return "/v1/intent", {**body, "amount": "100.00"}, headers
    intent_id, link = await start_onboarding(http, token, accounts=accounts)
    if endpoint == "execute":
        return f"/v1/intent/{intent_id}/transaction", {}, bearer(token)
    if endpoint == "sandbox-step":
        # Not the current step: refused (409), so no signal outlives the test.
        path = f"/v1/sandbox/intents/{intent_id}/compliance-steps/KYC_BASIC"
        return path, {"outcome": "VERIFIED"}, project.basic
    if endpoint == "sandbox-event":
        path = f"/v1/sandbox/transactions/{uuid.uuid4()}/events"
        return path, {"type": "DEPOSIT_RECEIVED"}, project.basic
    return f"/v1/onboarding/{intent_id}/steps/TERMS_OF_SERVICE", TERMS, bearer(link)


@pytest.mark.parametrize("endpoint", ENDPOINTS)
async def test_no_connection_is_held_while_the_body_arrives(
    migrated: Settings, project: ProjectCredentials, endpoint: str
) -> None:
    connections = ConnectionCount()
    async with serve(watched(create_app(migrated), connections)) as http:
        path, body, headers = await _request(http, project, endpoint)
        held, response = await held_while_the_body_arrives(
            http, connections, "POST", path, body, headers
        )
    assert response.status_code < 500, response.text
    assert held == 0, f"POST {path} held {held} connection(s) while reading its body"
