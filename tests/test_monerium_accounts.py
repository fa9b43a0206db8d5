"""A Monerium account as an operator sets it: the client credentials checked by taking a
token, a webhook secret generated and stored sealed before the subscription is made,
Monerium's signed test call answered 2xx by our endpoint, and later notifications
verified with the stored secret (the Monerium simulator; our API over real HTTP)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from api.app import create_app
from ramp import projects
from ramp.adapters.monerium import MoneriumConnector
from ramp.adapters.registry import Connectors
from ramp.config import Environment, Settings
from ramp.db.tables import ProviderAccount, ProviderWebhookEvent
from ramp.errors import InvalidInput
from ramp.provider_accounts import service
from ramp.provider_accounts.credentials import unseal_webhook_secret
from ramp.security.encryption import SecretBox
from tests.helpers.production import SIMULATOR_NETWORK
from tests.helpers.servers import served_over_http
from tests.simulators.monerium import MoneriumSimulator, running

CLIENT_ID = "1b3a17ef-460f-47b0-84c6-4495e18589b3"
CLIENT_SECRET = "operator-client-secret"


@pytest.fixture(scope="module")
async def monerium() -> AsyncIterator[MoneriumSimulator]:
    async with running(MoneriumSimulator(clients={CLIENT_ID: CLIENT_SECRET})) as simulator:
        yield simulator


@pytest.fixture
async def api(migrated: Settings, monerium: MoneriumSimulator) -> AsyncIterator[str]:
    monerium.reset()
    async with served_over_http(create_app(migrated)) as url:
        yield url


def connectors() -> Connectors:
    return Connectors(
        {"MONERIUM": MoneriumConnector(network=SIMULATOR_NETWORK)}, network=SIMULATOR_NETWORK
    )


async def set_account(
    db: AsyncSession,
    settings: Settings,
    project_id: str,
    public_url: str,
    credentials: dict[str, str],
) -> service.ProviderAccountView:
    return await service.set_provider_account(
        db,
        project_id=project_id,
        provider_code="MONERIUM",
        credentials=credentials,
        secret_box=SecretBox.from_settings(settings),
        public_url=public_url,
        connectors=connectors(),
    )


async def test_set_takes_a_token_subscribes_with_our_secret_and_answers_the_test_call(
    db: AsyncSession, migrated: Settings, monerium: MoneriumSimulator, api: str
) -> None:
    box = SecretBox.from_settings(migrated)
    project = await projects.create_project(
        db, name="Euro shop", environment=Environment.PRODUCTION, secret_box=box
    )
    credentials = {"clientId": CLIENT_ID, "clientSecret": CLIENT_SECRET,
                   "environment": "sandbox", "baseUrl": monerium.url}  # fmt: skip
    with pytest.raises(InvalidInput, match="client credentials"):
        await set_account(db, migrated, project.projectId, api,
                          {**credentials, "clientSecret": "not-the-secret"})  # fmt: skip
    assert (await db.exec(select(ProviderAccount))).all() == []
    assert monerium.subscriptions == {}

    account = await set_account(db, migrated, project.projectId, api, credentials)
    assert (account.status, account.webhook_registered) == ("HEALTHY", True)
    assert account.webhook_url == f"{api}/v1/provider-webhooks/{account.id}"
    assert account.credentials_hint is not None
    assert CLIENT_SECRET not in account.credentials_hint
    # Monerium's test call reached our endpoint, signed with the secret we sent, and
    # was answered 2xx: only then does the subscription exist.
    assert [(d.type, d.status) for d in monerium.deliveries] == [("subscription.created", 200)]
    [subscription] = monerium.subscriptions.values()
    assert subscription["url"] == account.webhook_url
    row = await db.get(ProviderAccount, account.id)
    assert row is not None
    assert row.webhook_secret_encrypted is not None
    assert subscription["secret"] not in row.webhook_secret_encrypted
    stored = unseal_webhook_secret(
        box, row.webhook_secret_encrypted, provider_account_id=row.id, provider_code="MONERIUM"
    )
    assert stored == subscription["secret"]

    # Set again (new credentials, same client): the same secret, the same subscription.
    again = await set_account(db, migrated, project.projectId, api, credentials)
    assert again.id == account.id
    assert len(monerium.calls("POST", "/webhooks")) == 1
    await db.refresh(row)
    assert row.webhook_secret_encrypted is not None
    assert (
        unseal_webhook_secret(
            box, row.webhook_secret_encrypted, provider_account_id=row.id, provider_code="MONERIUM"
        )
        == stored
    )

    # A notification is verified with the stored secret and kept; a forged one is not.
    status = await monerium.deliver(
        account.webhook_url, stored, "order.updated",
        {"id": "9a3c51a8-044f-41ed-8b1f-4a76448b7b21", "kind": "redeem", "state": "processed",
         "profile": "p", "amount": "1.00", "meta": {"placedAt": "2026-11-26T03:00:00Z"}},
    )  # fmt: skip
    assert status == 200
    forged = await monerium.deliver(
        account.webhook_url, "whsec_" + "A" * 44, "order.updated", {"id": "x", "kind": "redeem"}
    )
    assert forged == 401
    db.expire_all()
    events = (await db.exec(select(ProviderWebhookEvent))).all()
    assert [e.provider_account_id for e in events] == [account.id]
    async with httpx.AsyncClient() as http:  # an unsigned call is refused as well
        refused = await http.post(account.webhook_url, json={"type": "subscription.created"})
    assert refused.status_code == 401
