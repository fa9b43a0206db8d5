"""The hosted onboarding page tells nothing before its token is checked: without a
token, or with one that is not ours for that intent, an existing intent, another
project's intent and an id that names nothing get the same status, body and headers,
and the content security policy names no project's origins."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.config import Settings
from ramp.security.tokens import TokenService
from tests.helpers.onboarding import start_onboarding
from tests.helpers.projects import ProjectCredentials, make_customer, make_project

# About what the page shows without its token, not the database: one of the two passes runs it.
pytestmark = [pytest.mark.either_database, pytest.mark.usefixtures("worker")]

OURS = "https://app.example.com"
THEIRS = "https://other.example.com"


async def onboarding_intent(
    client: httpx.AsyncClient, project: ProjectCredentials, origin: str, name: str
) -> tuple[str, str, str]:
    """An intent of `project` (which allows `origin`) in onboarding: (intent id, customer
    id, link token)."""
    allowed = await client.put(
        "/v1/project/onboarding-origins", json={"origins": [origin]}, headers=project.basic
    )
    assert allowed.status_code == 200, allowed.text
    customer = await make_customer(client, project, name)
    intent_id, token = await start_onboarding(client, customer["access_token"])
    return intent_id, customer["id"], token


def answer(response: httpx.Response) -> tuple[int, str, dict[str, str]]:
    # Less the request's own id (every answer has a new one): it says nothing of the intent.
    headers = {name: value for name, value in response.headers.items() if name != "x-request-id"}
    return response.status_code, response.text, headers


async def test_without_a_checked_token_every_intent_id_gets_the_same_answer(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    customer: dict[str, Any],
    migrated: Settings,
    db: AsyncSession,
) -> None:
    mine, my_customer, my_token = await onboarding_intent(client, project, OURS, "privacy-me")
    other_project = await make_project(db, migrated, "Someone else's project")
    foreign, _, foreign_token = await onboarding_intent(
        client, other_project, THEIRS, "privacy-them"
    )
    unknown = str(uuid.uuid4())
    tokens = TokenService.from_settings(migrated)
    expired_elsewhere = tokens.issue_onboarding_token(
        str(uuid.uuid4()), my_customer, timedelta(seconds=-5)
    )
    _, third_token = await start_onboarding(client, customer["access_token"])
    cases: dict[str, dict[str, str]] = {
        "no token": {},
        "not a token": {"token": "not-a-token"},
        "a customer token": {"token": customer["access_token"]},
        "the link of a third intent": {"token": third_token},
        "an expired link of some other intent": {"token": expired_elsewhere},
    }
    for case, params in cases.items():
        answers = {
            name: answer(await client.get(f"/onboarding/{intent_id}", params=params))
            for name, intent_id in (("mine", mine), ("foreign", foreign), ("unknown", unknown))
        }
        assert answers["foreign"] == answers["mine"], case
        assert answers["unknown"] == answers["mine"], case
        policy = answers["mine"][2]["content-security-policy"]
        assert "frame-ancestors 'none'" in policy, case
        assert OURS not in policy, case
        assert THEIRS not in policy, case

    # The token of one intent opens no other, and says nothing about it either.
    on_foreign = await client.get(f"/onboarding/{foreign}", params={"token": my_token})
    on_unknown = await client.get(f"/onboarding/{unknown}", params={"token": my_token})
    assert answer(on_foreign) == answer(on_unknown)
    assert on_foreign.status_code == 404
    assert THEIRS not in on_foreign.headers["content-security-policy"]
    assert answer(
        await client.get(f"/onboarding/{mine}", params={"token": foreign_token})
    ) == answer(await client.get(f"/onboarding/{unknown}", params={"token": foreign_token}))

    # Once the token proves whose link it is, the project's origins may frame the page,
    # also the error page of an expired link of that very intent.
    page = await client.get(f"/onboarding/{mine}", params={"token": my_token})
    assert page.status_code == 200
    assert f"frame-ancestors {OURS}" in page.headers["content-security-policy"]
    expired = tokens.issue_onboarding_token(mine, my_customer, timedelta(seconds=-5))
    late = await client.get(f"/onboarding/{mine}", params={"token": expired})
    assert late.status_code == 401
    assert "This link has expired" in late.text
    assert f"frame-ancestors {OURS}" in late.headers["content-security-policy"]
