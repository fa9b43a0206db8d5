"""The hosted onboarding page of a Bridge intent, in Chromium: each step links to
Bridge's own page (a new tab) instead of our form, and the page follows Bridge's
verdicts as they arrive by webhook."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator

import httpx
import pytest
from playwright.async_api import expect
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client

from api.app import create_app
from ramp.config import Settings
from ramp.security.encryption import SecretBox
from tests.helpers.browser import chromium, served
from tests.helpers.payments import ACH, register_accounts, wait_for_intent, wallet
from tests.helpers.production import (
    BRIDGE_KEY,
    connected_project,
    customer_token,
    deliver,
    fast_connectors,
)
from tests.helpers.projects import bearer
from tests.helpers.servers import derive_settings
from tests.serving import bound_socket
from tests.simulators.bridge import BridgeSimulator, running
from worker import build_provider_worker, build_worker

WAIT_MS = 20_000

# About the page in a browser, not the database (the API under it runs in both passes):
# one of the two passes runs it.
pytestmark = pytest.mark.either_database


@pytest.fixture(scope="module")
async def bridge() -> AsyncIterator[BridgeSimulator]:
    async with running(BridgeSimulator(api_keys={BRIDGE_KEY})) as simulator:
        yield simulator


async def test_the_page_hands_each_step_off_to_bridge_and_follows_it(
    migrated: Settings,
    temporal_client: Client,
    sessions: async_sessionmaker[AsyncSession],
    db: AsyncSession,
    bridge: BridgeSimulator,
) -> None:
    sock = bound_socket()
    api_url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    production = derive_settings(migrated, RAMP_ENV="production", RAMP_PUBLIC_URL=api_url)
    box = SecretBox.from_settings(production)
    async with (
        build_worker(temporal_client, sessions, box, task_queue=production.task_queue),
        build_provider_worker(
            temporal_client, sessions, box, connectors=fast_connectors(),
            task_queue=production.task_queue,
        ),
        served(create_app(production), sock),
        httpx.AsyncClient(base_url=api_url, timeout=20) as http,
        chromium() as browser,
    ):  # fmt: skip
        merchant = await connected_project(db, production, bridge)
        token = await customer_token(http, merchant.project, "page")
        accounts = await register_accounts(
            http, token, "USD", "USDC_ETHEREUM", copy.deepcopy(ACH), wallet("USDC_ETHEREUM")
        )
        opened = await http.post(
            "/v1/intent",
            json={"srcExternalAccountId": accounts[0], "destExternalAccountId": accounts[1],
                  "amount": "40.00"},
            headers=bearer(token),
        )  # fmt: skip
        intent = opened.json()
        await wait_for_intent(
            http, token, intent["intent"]["id"],
            lambda b: all("handoff" in s["metadata"]
                          for s in b["intent"]["compliancePlan"]["steps"]),
            within=30,
        )  # fmt: skip
        [link] = bridge.kyc_links.values()

        context = await browser.new_context(viewport={"width": 360, "height": 860})
        context.set_default_timeout(WAIT_MS)
        page = await context.new_page()
        await page.goto(intent["frontendUrl"])
        terms = page.get_by_role("link", name="Continue with Bridge")
        await expect(terms).to_have_attribute("href", link["tos_link"])
        await expect(terms).to_have_attribute("target", "_blank")
        # Our own form is not shown: Bridge collects this step.
        await expect(page.locator("form")).to_have_count(0)

        # Terms accepted at Bridge: the page moves on to the identity link by itself.
        bridge.set_kyc(link["id"], kyc_status="not_started", tos_status="approved")
        await deliver(http, bridge, merchant.webhook_path, "kyc_link", link)
        await expect(page.get_by_role("link", name="Continue with Bridge")).to_have_attribute(
            "href", link["kyc_link"]
        )
        # Identity approved: verified.
        bridge.set_kyc(link["id"], kyc_status="approved", tos_status="approved")
        await deliver(http, bridge, merchant.webhook_path, "kyc_link", link)
        await expect(page.get_by_role("heading", name="You're verified")).to_be_visible()
        await context.close()
