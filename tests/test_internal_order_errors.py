"""An order that fails on our side, not the provider's (patch `internal-order-error-kept`,
workflows/internal_errors.py): the intent keeps its provider, the provider's health is
not charged, and the client reads our failure (`503 TEMPORARILY_UNAVAILABLE`), not the
provider's; once we recover, the same call places the order with the same provider.

The failure is real: the database refuses the order's statement (its `partner_fee`
table renamed away: tests/helpers/our_failures.py), in an in-process (sandbox)
provider's order. A network provider's: tests/test_bridge_accounts.py. The provider
failing still fails over: tests/test_routing.py. Real HTTP, real Temporal, the module's
worker, the real database."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.routing.health import Health, account_health
from tests.helpers.our_failures import moves_announced, order_statement_failing
from tests.helpers.payments import ATLAS, complete_onboarding, create_intent, register_accounts
from tests.helpers.projects import ProjectCredentials, bearer, make_customer

pytestmark = pytest.mark.usefixtures("worker")


async def test_an_in_process_order_failing_on_our_side_keeps_its_provider(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    sessions: async_sessionmaker[AsyncSession],
    db: AsyncSession,
) -> None:
    customer = await make_customer(client, project)
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    opened = await create_intent(client, token, accounts, autoExecute=False)
    assert opened.status_code == 201, opened.text
    intent_id = opened.json()["intent"]["id"]
    plan = opened.json()["intent"]["mmPlan"]
    assert plan["providerAccount"]["providerCode"] == ATLAS
    atlas_account = plan["providerAccountId"]
    await complete_onboarding(client, project, token, intent_id)
    execute = f"/v1/intent/{intent_id}/transaction"

    async with order_statement_failing(sessions):
        failed = await client.post(execute, json={}, headers=bearer(token))
        # Ours, said as ours: retry later; not the provider's 502 and name.
        assert failed.status_code == 503, failed.text
        assert failed.headers["Retry-After"] == "1"
        error = failed.json()
        assert error["code"] == "TEMPORARILY_UNAVAILABLE"
        assert "internal error of the service" in error["message"]
        assert "unavailable" not in error["message"]
        assert "partner_fee" not in error["message"]  # our exception stays in our logs
        view = (await client.get(f"/v1/intent/{intent_id}", headers=bearer(token))).json()

    # A valid intent without a transaction, still with Atlas: no move, none announced.
    assert view["intent"]["status"] == "PENDING"
    assert view["transaction"] is None
    assert view["intent"]["mmPlan"]["providerAccountId"] == atlas_account
    assert view["intent"]["mmPlan"]["providerMoves"] == []
    assert await moves_announced(sessions, intent_id) == 0
    # Atlas did nothing wrong: its health is untouched.
    health = (await account_health(db, [atlas_account]))[atlas_account]
    assert (health.state, health.consecutive_failures, health.last_failure) == (
        Health.HEALTHY,
        0,
        None,
    )

    # The database back, the client's same call places the order with Atlas.
    placed = await client.post(execute, json={}, headers=bearer(token))
    assert placed.status_code == 201, placed.text
    assert placed.json()["transaction"] is not None
    assert placed.json()["intent"]["mmPlan"]["providerAccountId"] == atlas_account
    assert placed.json()["intent"]["mmPlan"]["providerMoves"] == []
