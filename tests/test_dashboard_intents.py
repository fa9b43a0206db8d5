"""A project's intents in the dashboard: the filtered list (admin API and page), the
intent page, and the sandbox tools that walk a flow without curl."""

from __future__ import annotations

import uuid
from decimal import Decimal

import httpx
import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.adapters.contract import DepositMatch, ProviderTransferEvent
from ramp.db.tables import ProviderAccount
from ramp.db.types import utcnow
from ramp.intents.states import ProviderEventType
from ramp.provider_webhooks.unmatched import report_unmatched
from tests.helpers.dashboard import Member, join, new_organization
from tests.helpers.errors import assert_envelope
from tests.helpers.payments import create_intent, register_accounts, step_status, wait_for_intent

pytestmark = pytest.mark.usefixtures("worker")


async def _intent(
    client: httpx.AsyncClient, owner: Member
) -> tuple[str, str, str, dict[str, object]]:
    made = await client.post("/v1/admin/projects", json={"name": "Shop"}, headers=owner.write)
    project = made.json()
    auth = (project["clientId"], project["clientSecret"])
    customer = await client.post("/v1/customers", json={"id": "user-1"}, auth=auth)
    token = customer.json()["access_token"]
    opened = await create_intent(client, token, await register_accounts(client, token))
    assert opened.status_code == 201, opened.text
    return project["projectId"], token, customer.json()["id"], opened.json()


async def test_the_intent_list_filters_and_the_sandbox_tools_walk_a_step(
    client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    owner = await join(client, await new_organization(sessions, "owner@acme.test"))
    project_id, token, customer_id, opened = await _intent(client, owner)
    intent = opened["intent"]
    assert isinstance(intent, dict)
    url = f"/v1/admin/projects/{project_id}/intents"
    listed = await client.get(url, headers=owner.read)
    assert [i["id"] for i in listed.json()] == [intent["id"]]
    provider = listed.json()[0]["providerCode"]
    for query, expected in (
        ({"status": intent["status"]}, 1),
        ({"status": "COMPLETED"}, 0),
        ({"customerId": customer_id}, 1),
        ({"customerId": "someone-else"}, 0),
        ({"from": "2000-01-01", "to": "2000-01-02"}, 0),
        ({"from": "2000-01-01"}, 1),
        ({"provider": "no_such_provider"}, 0),
    ):
        found = await client.get(url, params=query, headers=owner.read)
        assert len(found.json()) == expected, (query, found.text)
    found = await client.get(url, params={"provider": provider}, headers=owner.read)
    assert len(found.json()) == 1
    bad = await client.get(url, params={"from": "yesterday"}, headers=owner.read)
    assert_envelope(bad, 400, "VALIDATION_ERROR")

    # The owner knows the customer by the project's own id: the filter takes it too.
    found = await client.get(url, params={"customerId": "user-1"}, headers=owner.read)
    assert len(found.json()) == 1, found.text

    page = await client.get(f"/dashboard/projects/{project_id}/intents", headers=owner.read)
    assert intent["id"][:8] in page.text
    assert '<td data-label="Customer">user-1</td>' in page.text
    assert customer_id[:8] not in page.text
    intent_url = f"/dashboard/projects/{project_id}/intents/{intent['id']}"
    detail = await client.get(intent_url, headers=owner.read)
    assert detail.status_code == 200
    assert '<span id="customer-id">user-1</span>' in detail.text
    # The provider by its name, once: not "Name (sandbox) (sandbox_code)".
    assert f"({provider})" not in detail.text
    assert f'<td data-label="Provider">{provider}</td>' not in page.text
    assert "Sandbox tools" in detail.text
    code = intent["compliancePlan"]["currentStepCode"]
    assert code in detail.text
    played = await client.post(
        intent_url + "/sandbox",
        data={"csrf_token": owner.csrf, "tool": "step", "step_code": code, "outcome": "VERIFIED"},
        headers=owner.read,
    )
    assert played.status_code == 303, played.text
    await wait_for_intent(
        client, token, intent["id"], lambda body: step_status(body, code) == "COMPLETED"
    )
    # A step already decided is refused with the sandbox's words, on the page.
    again = await client.post(
        intent_url + "/sandbox",
        data={"csrf_token": owner.csrf, "tool": "step", "step_code": code, "outcome": "VERIFIED"},
        headers=owner.read,
    )
    assert again.status_code == 400
    assert 'class="error"' in again.text


async def test_unmatched_money_is_listed_for_operators(
    client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """Money a provider received that no intent matches, reported by the relay, is on the
    project's "Unmatched money" page, once per payment, and on no other project's."""
    owner = await join(client, await new_organization(sessions, "ops@acme.test"))
    made = await client.post("/v1/admin/projects", json={"name": "Till"}, headers=owner.write)
    project_id = made.json()["projectId"]
    other = await client.post("/v1/admin/projects", json={"name": "Else"}, headers=owner.write)
    account_id = str(uuid.uuid4())
    async with sessions() as session:
        session.add(ProviderAccount(id=account_id, project_id=project_id, provider_code="MONERIUM"))
        await session.commit()
    payment = ProviderTransferEvent(
        provider_event_id="message-1",
        provider_reference="issue-unmatched:order-77",
        provider_state="pending",
        events=(ProviderEventType.DEPOSIT_RECEIVED,),
        match=DepositMatch(
            provider_customer_id="a-stranger", amount=Decimal("77.00"), currency="eur",
            payment_reference="order-77",
        ),
    )  # fmt: skip
    for _ in range(2):  # order.created, then order.updated: one payment, one report
        await report_unmatched(sessions, account_id, payment, utcnow())

    page = await client.get(f"/dashboard/projects/{project_id}/unmatched", headers=owner.read)
    assert page.status_code == 200
    assert page.text.count("<code>order-77</code>") == 1
    assert '<td data-label="Amount">77.00 EUR</td>' in page.text
    assert '<td data-label="Intent">none matches</td>' in page.text
    assert '<td data-label="Customer">unknown</td>' in page.text
    elsewhere = await client.get(
        f"/dashboard/projects/{other.json()['projectId']}/unmatched", headers=owner.read
    )
    assert "order-77" not in elsewhere.text
    assert "No unmatched money." in elsewhere.text
    # The admin API lists the same events, each as its webhook carries it.
    listed = await client.get(
        f"/v1/admin/projects/{project_id}/unmatched-money", headers=owner.read
    )
    assert listed.status_code == 200
    [money] = listed.json()
    assert money["eventType"] == "DEPOSIT_UNMATCHED"
    assert money["data"]["intentId"] is None
    assert (money["data"]["providerReference"], money["data"]["amount"]) == ("order-77", "77.00")
