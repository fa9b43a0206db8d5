"""A provider that fails: the intent survives and the client's retry goes through.

This module runs its own Temporal dev server and worker, whose Atlas adapter is the
sandbox one with failures switched on (the provider's API is the one outside party
tests may stand in for).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from api.app import create_app
from ramp.adapters.contract import (
    ProviderAccountRef,
    ProviderContext,
    ProviderCustomerRef,
    ProviderRefused,
    ProviderTransfer,
    TransactionOrder,
)
from ramp.adapters.registry import Connectors
from ramp.adapters.sandbox import SandboxConnector
from ramp.catalog import provider_by_code
from ramp.config import Settings
from ramp.security.encryption import SecretBox
from tests.helpers.payments import complete_onboarding, create_intent, register_accounts
from tests.helpers.projects import ProjectCredentials, bearer, make_customer
from tests.helpers.servers import derive_settings, dev_server, serve, service_client
from worker import build_worker

# About a failing provider and retries, not the database: one of the two passes runs it.
pytestmark = pytest.mark.either_database


class FailingProvider(SandboxConnector):
    """Refuses the next `failures` orders, then behaves."""

    failures = 0

    async def create_transfer(
        self,
        ctx: ProviderContext,
        customer: ProviderCustomerRef,
        order: TransactionOrder,
        destination_account: ProviderAccountRef | None = None,
    ) -> ProviderTransfer:
        if self.failures > 0:
            self.failures -= 1
            # The connector contract: a declined attempt (not final) is not retried,
            # and the intent stays for the client to ask again.
            raise ProviderRefused("maintenance window", final=False)
        return await super().create_transfer(ctx, customer, order, destination_account)


@pytest.fixture(scope="module")
def atlas() -> FailingProvider:
    provider = provider_by_code("sandbox_atlas")
    assert provider is not None
    return FailingProvider(provider)


@pytest.fixture(scope="module")
async def http(
    migrated: Settings,
    sessions: async_sessionmaker[AsyncSession],
    secret_box: SecretBox,
    atlas: FailingProvider,
) -> AsyncIterator[httpx.AsyncClient]:
    async with dev_server() as env:
        address = env.client.service_client.config.target_host
        connectors = Connectors({atlas.provider.code: atlas})
        async with (
            build_worker(
                service_client(env),
                sessions,
                secret_box,
                connectors=connectors,
                task_queue=migrated.task_queue,
            ),
            serve(create_app(derive_settings(migrated, TEMPORAL_ADDRESS=address))) as client,
        ):
            yield client


async def onboarded_intent(
    http: httpx.AsyncClient, project: ProjectCredentials
) -> tuple[str, dict[str, Any]]:
    token = (await make_customer(http, project))["access_token"]
    created = await create_intent(http, token, await register_accounts(http, token))
    intent_id = created.json()["intent"]["id"]
    return token, await complete_onboarding(http, project, token, intent_id)


async def test_a_retry_after_a_provider_failure_creates_the_transaction(
    http: httpx.AsyncClient, project: ProjectCredentials, atlas: FailingProvider
) -> None:
    token, onboarded = await onboarded_intent(http, project)
    intent_id = onboarded["intent"]["id"]
    atlas.failures = 1
    failed = await http.post(f"/v1/intent/{intent_id}/transaction", headers=bearer(token))
    assert failed.status_code == 502
    assert failed.json()["code"] == "PROVIDER_ERROR"
    retried = await http.post(f"/v1/intent/{intent_id}/transaction", headers=bearer(token))
    assert retried.status_code == 201, retried.text
    assert retried.json()["transaction"]["status"] == "PENDING"


async def test_concurrent_executions_create_one_transaction(
    http: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    token, onboarded = await onboarded_intent(http, project)
    path = f"/v1/intent/{onboarded['intent']['id']}/transaction"
    responses = await asyncio.gather(*(http.post(path, headers=bearer(token)) for _ in range(3)))
    statuses = sorted(response.status_code for response in responses)
    assert statuses == [201, 400, 400], [r.text for r in responses]
    refused = [r.json() for r in responses if r.status_code == 400]
    assert {error["code"] for error in refused} == {"TRANSACTION_EXISTS"}


async def test_concurrent_retries_with_one_key_create_one_intent(
    http: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    token = (await make_customer(http, project, "retrier"))["access_token"]
    accounts = await register_accounts(http, token)
    key = {"Idempotency-Key": "checkout-7"}
    responses = await asyncio.gather(
        *(create_intent(http, token, accounts, headers=key) for _ in range(3))
    )
    assert {response.status_code for response in responses} == {201}
    assert len({response.json()["intent"]["id"] for response in responses}) == 1
    listed = await http.get("/v1/intent", headers=bearer(token))
    assert len(listed.json()) == 1
