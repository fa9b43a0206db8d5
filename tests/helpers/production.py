"""A production stack on the test's Temporal server: the API, the service's worker and
the providers' worker, a production project connected to the Bridge simulator."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client

from api.app import create_app
from ramp import projects
from ramp.adapters.bridge import BridgeConnector
from ramp.adapters.registry import Connectors
from ramp.config import Environment, Settings
from ramp.intents.models import PollSchedule
from ramp.provider_accounts import service
from ramp.security.encryption import SecretBox
from ramp.security.network import PUBLIC_ONLY, parse_networks
from tests.helpers.payments import register_accounts, wait_for_intent
from tests.helpers.projects import ProjectCredentials, bearer
from tests.helpers.servers import serve
from tests.simulators.bridge import BridgeSimulator
from worker import build_provider_worker, build_worker

BRIDGE_KEY = "sk-test-production-key"
SIMULATOR_NETWORK = PUBLIC_ONLY.with_networks(parse_networks("127.0.0.1/32"))


def fast_connectors() -> Connectors:
    # A short read timeout: a simulated outage answers late, and the retry comes sooner.
    # The connect keeps production's 5 s: a loaded machine can hold the loop past a second.
    # The simulator listens on loopback: allowed as an operator allows a staging proxy.
    return Connectors(
        {
            "BRIDGE": BridgeConnector(
                timeout=httpx.Timeout(3.0, connect=5.0), network=SIMULATOR_NETWORK
            )
        },
        network=SIMULATOR_NETWORK,
    )


@asynccontextmanager
async def production_stack(
    settings: Settings,
    client: Client,
    db: async_sessionmaker[AsyncSession],
    provider_poll: PollSchedule | None = None,
) -> AsyncIterator[httpx.AsyncClient]:
    """`settings` must be production's; yields an HTTP client of the API."""
    box = SecretBox.from_settings(settings)
    async with (
        build_worker(
            client,
            db,
            box,
            connectors=fast_connectors(),
            provider_poll=provider_poll,
            task_queue=settings.task_queue,
        ),
        build_provider_worker(
            client, db, box, connectors=fast_connectors(), task_queue=settings.task_queue
        ),
        serve(create_app(settings)) as http,
    ):
        yield http


@dataclass(frozen=True)
class Merchant:
    project: ProjectCredentials
    provider_account_id: str
    webhook_path: str


async def connected_project(
    session: AsyncSession, settings: Settings, bridge: BridgeSimulator, key: str = BRIDGE_KEY
) -> Merchant:
    """A production project with a Bridge account pointing at the simulator."""
    box = SecretBox.from_settings(settings)
    created = await projects.create_project(
        session, name="Shop", environment=Environment.PRODUCTION, secret_box=box
    )
    account = await service.set_provider_account(
        session,
        project_id=created.projectId,
        provider_code="BRIDGE",
        credentials={"apiKey": key, "environment": "sandbox", "baseUrl": bridge.url},
        secret_box=box,
        public_url=settings.public_url,
        connectors=fast_connectors(),
    )
    project = ProjectCredentials(
        created.organizationId, created.projectId, created.clientId, created.clientSecret
    )
    return Merchant(project, account.id, f"/v1/provider-webhooks/{account.id}")


async def customer_token(
    http: httpx.AsyncClient, project: ProjectCredentials, external_id: str = "ada"
) -> str:
    response = await http.post(
        "/v1/customers",
        json={
            "id": external_id,
            "metadata": {"email": f"{external_id}@example.com", "name": "Ada Lovelace"},
        },
        headers=project.basic,
    )
    assert response.status_code in (200, 201), response.text
    token: str = response.json()["access_token"]
    return token


async def deliver(
    http: httpx.AsyncClient, bridge: BridgeSimulator, path: str, category: str, obj: Any
) -> httpx.Response:
    """Bridge posting a signed event about `obj` to our endpoint."""
    body = bridge.event(category, obj)
    return await http.post(path, content=body, headers=bridge.sign(body))


__all__ = ["bearer"]


async def approved_customer(
    http: httpx.AsyncClient,
    bridge: BridgeSimulator,
    merchant: Merchant,
    name: str,
    src: str,
    dest: str,
    source: dict[str, Any],
    destination: dict[str, Any],
    amount: str = "100.00",
    within: float = 30.0,
    person: dict[str, Any] | None = None,
    auto_execute: bool = True,
) -> tuple[str, str]:
    """A customer whose intent waits on Bridge's links; Bridge approves both at once
    (with `person`: what the customer typed in Bridge's flow, on Bridge's customer).
    Returns the customer's token and the intent's id (placed on its own with
    `auto_execute`, else when the client asks)."""
    token = await customer_token(http, merchant.project, name)
    accounts = await register_accounts(http, token, src, dest, source, destination)
    opened = await http.post(
        "/v1/intent",
        json={"srcExternalAccountId": accounts[0], "destExternalAccountId": accounts[1],
              "amount": amount, "autoExecute": auto_execute},
        headers=bearer(token),
    )  # fmt: skip
    assert opened.status_code == 201, opened.text
    intent_id: str = opened.json()["intent"]["id"]
    await wait_for_intent(
        http, token, intent_id,
        lambda b: all(
            "handoff" in s["metadata"] for s in b["intent"]["compliancePlan"]["steps"]
        ),
        within=within,
    )  # fmt: skip
    link = next(k for k in bridge.kyc_links.values() if k["email"] == f"{name}@example.com")
    bridge.set_kyc(link["id"], kyc_status="approved", tos_status="approved", person=person)
    answer = await deliver(http, bridge, merchant.webhook_path, "kyc_link", link)
    assert answer.status_code == 200, answer.text
    return token, intent_id
