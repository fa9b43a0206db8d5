"""A handler holds no database connection while a request body is on its way: it
authenticates in a session of its own, reads and parses the body, and only then opens
the session its application service works in. A slow client (or a slow network) would
otherwise keep one of the pool's few connections per request."""

from __future__ import annotations

from typing import Any

import pytest

from api.app import create_app
from ramp.config import Settings
from tests.helpers.connections import ConnectionCount, held_while_the_body_arrives, watched
from tests.helpers.projects import ProjectCredentials, bearer, make_customer
from tests.helpers.servers import serve

# (method, path, body, who): every body-reading endpoint this module's services serve.
BODY_ENDPOINTS = [
    ("POST", "/v1/customers", {"id": "slow-1"}, "project"),
    (
        "POST",
        "/v1/customers/external-accounts",
        {"src": "USD", "dest": "USDC_ETHEREUM", "source": {}, "destination": {}},
        "customer",
    ),
    ("POST", "/v1/webhooks/endpoints", {"url": "https://hooks.example.com/a"}, "project"),
    (
        "PATCH",
        "/v1/webhooks/endpoints/5f0c1c2e-0000-4000-8000-000000000000",
        {"enabled": False},
        "project",
    ),
    ("PUT", "/v1/project/onboarding-origins", {"origins": ["https://app.example"]}, "project"),
]


@pytest.mark.parametrize(("method", "path", "body", "who"), BODY_ENDPOINTS)
async def test_no_connection_is_held_while_the_body_arrives(
    migrated: Settings,
    project: ProjectCredentials,
    method: str,
    path: str,
    body: dict[str, Any],
    who: str,
) -> None:
    connections = ConnectionCount()
    async with serve(watched(create_app(migrated), connections)) as http:
        if who == "customer":
            headers = bearer((await make_customer(http, project))["access_token"])
        else:
            headers = project.basic
        held, response = await held_while_the_body_arrives(
            http, connections, method, path, body, headers
        )
    assert response.status_code < 500, response.text
    assert held == 0, f"{method} {path} held {held} connection(s) while reading its body"
