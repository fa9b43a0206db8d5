"""The hosted onboarding page of a Monerium off-ramp, in Chromium: once Monerium approved
the profile, the page asks the customer's wallet (an injected EIP-1193 provider backed by
`eth-account`) to sign the address link, then the redeem order, showing exactly what is
signed; the order is then placed with that signature."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator

import httpx
import pytest
from eth_account import Account
from eth_account.messages import encode_defunct
from playwright.async_api import expect
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client

from api.app import create_app
from ramp import projects
from ramp.config import Environment, Settings
from ramp.provider_accounts import service
from ramp.security.encryption import SecretBox
from tests.helpers.browser import bound_socket, chromium, served
from tests.helpers.payments import SEPA, register_accounts, wait_for_intent, wallet
from tests.helpers.production import customer_token, fast_connectors
from tests.helpers.projects import ProjectCredentials, bearer
from tests.helpers.servers import derive_settings
from tests.simulators.monerium import MoneriumSimulator, running
from worker import build_provider_worker, build_worker

CLIENT_ID = "2e7c4a91-5b3d-4f60-8a1e-9c2d7b4f6a13"
CLIENT_SECRET = "page-client-secret"
WALLET = Account.from_key("0x" + "7a" * 32)
WAIT_MS = 20_000

# The customer's browser wallet: EIP-1193 `request`, signing in Python with eth-account.
PROVIDER = """
window.ethereum = {
  isInjected: true,
  async request({ method, params }) {
    if (method === "eth_requestAccounts") return [ADDRESS];
    if (method === "personal_sign") return await window.walletSign(params[0], params[1]);
    throw Object.assign(new Error("unsupported"), { code: 4200 });
  },
};
"""


@pytest.fixture(scope="module")
async def monerium() -> AsyncIterator[MoneriumSimulator]:
    async with running(MoneriumSimulator(clients={CLIENT_ID: CLIENT_SECRET})) as simulator:
        yield simulator


def wallet_sign(message_hex: str, address: str) -> str:
    assert address == WALLET.address
    signed = WALLET.sign_message(encode_defunct(hexstr=message_hex))
    return "0x" + bytes(signed.signature).hex().removeprefix("0x")


async def test_the_page_has_the_wallet_sign_the_link_then_the_redeem(
    migrated: Settings,
    temporal_client: Client,
    sessions: async_sessionmaker[AsyncSession],
    db: AsyncSession,
    monerium: MoneriumSimulator,
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
        created = await projects.create_project(
            db, name="Page shop", environment=Environment.PRODUCTION, secret_box=box
        )
        # Our API answers Monerium's test call: the subscription delivers for real.
        await service.set_provider_account(
            db,
            project_id=created.projectId,
            provider_code="MONERIUM",
            credentials={
                "clientId": CLIENT_ID,
                "clientSecret": CLIENT_SECRET,
                "environment": "sandbox",
                "baseUrl": monerium.url,
            },
            secret_box=box,
            public_url=api_url,
            connectors=fast_connectors(),
        )
        assert monerium.subscriptions
        project = ProjectCredentials(
            created.organizationId, created.projectId, created.clientId, created.clientSecret
        )
        token = await customer_token(http, project, "sofia")
        accounts = await register_accounts(
            http, token, "EURE_GNOSIS", "EUR", wallet("EURE_GNOSIS", WALLET.address),
            copy.deepcopy(SEPA),
        )  # fmt: skip
        opened = await http.post(
            "/v1/intent",
            json={"srcExternalAccountId": accounts[0], "destExternalAccountId": accounts[1],
                  "amount": "30.00"},
            headers=bearer(token),
        )  # fmt: skip
        intent = opened.json()
        intent_id = intent["intent"]["id"]
        await wait_for_intent(http, token, intent_id, lambda _: bool(monerium.profiles),
                              within=30)  # fmt: skip
        [profile] = monerium.profiles.values()
        await monerium.set_profile_state(profile["id"], "approved")  # its webhook follows

        context = await browser.new_context(viewport={"width": 360, "height": 860})
        context.set_default_timeout(WAIT_MS)
        await context.expose_function("walletSign", wallet_sign)
        await context.add_init_script(PROVIDER.replace("ADDRESS", repr(WALLET.address)))
        page = await context.new_page()
        await page.goto(intent["frontendUrl"])

        await expect(page.get_by_role("heading", name="Confirm your wallet")).to_be_visible()
        await expect(page.locator("#signing-message")).to_have_text(
            "I hereby declare that I am the address owner."
        )
        # A pasted signature by another wallet is refused, and says why.
        await page.get_by_text("Signing elsewhere (a Safe, another device)?").click()
        other = Account.from_key("0x" + "7b" * 32).sign_message(
            encode_defunct(text="I hereby declare that I am the address owner.")
        )
        await page.get_by_label("Signature (0x…)").fill(
            "0x" + bytes(other.signature).hex().removeprefix("0x")
        )
        await page.get_by_role("button", name="Send signature").click()
        await expect(page.get_by_role("alert")).to_contain_text("The signature was not accepted")
        await page.get_by_role("button", name="Sign with your wallet").click()

        await expect(page.get_by_role("heading", name="Approve the transfer")).to_be_visible()
        shown = await page.locator("#signing-message").inner_text()
        assert shown.startswith("Send EUR 30.00 to DE89370400440532013000 at ")
        await page.get_by_role("button", name="Sign with your wallet").click()
        # Signed and kept for the order: the page says so and has nothing left to ask.
        await expect(page.get_by_role("heading", name="You're verified")).to_be_visible()
        await expect(page.locator("#live")).to_have_text(
            "Transfer approved. You can return to the app."
        )
        await context.close()

        assert WALLET.address.lower() in monerium.addresses
        placed = await http.post(
            f"/v1/intent/{intent_id}/transaction", json={}, headers=bearer(token)
        )
        assert placed.status_code in (200, 201), placed.text
        [order] = monerium.calls("POST", "/orders")
        assert order.body["message"] == shown
