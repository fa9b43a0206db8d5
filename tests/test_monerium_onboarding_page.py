"""The hosted onboarding page of a Monerium off-ramp, in Chromium: once Monerium approved
the profile, the page asks the customer's wallet (an injected EIP-1193 provider backed by
`eth-account`) to sign the address link, then the redeem order, showing exactly what is
signed; the order is then placed with that signature. On the same stack, a customer
whose KYC Bridge approved is asked once whether to share it with Monerium, then types
only what Monerium needs beyond it (birth date, nationality, ID document, phone)."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator

import httpx
import pytest
from eth_account import Account
from eth_account.messages import encode_defunct
from playwright.async_api import Browser, expect
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client

from api.app import create_app
from ramp import projects
from ramp.config import Environment, Settings
from ramp.provider_accounts import service
from ramp.security.encryption import SecretBox
from tests.helpers.browser import chromium, served
from tests.helpers.onboarding import png
from tests.helpers.payments import ACH, SEPA, register_accounts, wait_for_intent, wallet
from tests.helpers.production import (
    BRIDGE_KEY,
    Merchant,
    approved_customer,
    customer_token,
    fast_connectors,
)
from tests.helpers.projects import ProjectCredentials, bearer
from tests.helpers.servers import derive_settings
from tests.serving import bound_socket
from tests.simulators.bridge import BridgeSimulator
from tests.simulators.bridge import running as bridge_running
from tests.simulators.monerium import MoneriumSimulator, running
from worker import build_provider_worker, build_worker

# About the page in a browser, not the database (the same flows through the API, the
# reuse of Bridge's KYC included, run in both passes in tests/test_monerium_production.py):
# one of the two passes runs it.
pytestmark = pytest.mark.either_database

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


@pytest.fixture(scope="module")
async def bridge() -> AsyncIterator[BridgeSimulator]:
    async with bridge_running(BridgeSimulator(api_keys={BRIDGE_KEY})) as simulator:
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
    bridge: BridgeSimulator,
) -> None:
    sock = bound_socket()
    api_url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    production = derive_settings(migrated, RAMP_ENV="production", RAMP_PUBLIC_URL=api_url)
    box = SecretBox.from_settings(production)
    async with (
        build_worker(
            temporal_client, sessions, box, connectors=fast_connectors(),
            task_queue=production.task_queue,
        ),
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
        # The approval reaches the intent (webhook, relay, workflow: the plan completed)
        # before the page is opened, so its first view is the wallet's signature. A run
        # with eight test processes found the page still on the proof of address when
        # the browser's wait ran out.
        await wait_for_intent(
            http,
            token,
            intent_id,
            lambda body: body["intent"]["compliancePlan"]["status"] == "COMPLETED",
            within=60,
        )

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

        # The same project with a Bridge account: a customer Bridge approved.
        bridge_account = await service.set_provider_account(
            db,
            project_id=created.projectId,
            provider_code="BRIDGE",
            credentials={"apiKey": BRIDGE_KEY, "environment": "sandbox", "baseUrl": bridge.url},
            secret_box=box,
            public_url=api_url,
            connectors=fast_connectors(),
        )
        merchant = Merchant(
            project, bridge_account.id, f"/v1/provider-webhooks/{bridge_account.id}"
        )
        person = {"first_name": "Inès", "last_name": "Quillfeather",
                  "address": {"street_line_1": "Rue de Rivoli 1", "city": "Paris",
                              "postal_code": "75001", "country": "FRA"}}  # fmt: skip
        ines, _ = await approved_customer(
            http, bridge, merchant, "ines", "USD", "USDC_ETHEREUM", copy.deepcopy(ACH),
            wallet("USDC_ETHEREUM"), person=person,
        )  # fmt: skip
        await bridge_then_monerium(http, browser, monerium, ines, profiles=len(monerium.profiles))


async def bridge_then_monerium(
    http: httpx.AsyncClient, browser: Browser, monerium: MoneriumSimulator, token: str,
    profiles: int,
) -> None:  # fmt: skip
    """The customer's Monerium on-ramp: the page asks once to share Bridge's data, then
    asks only for the rest; Monerium receives both."""
    accounts = await register_accounts(
        http, token, "EUR", "EURE_GNOSIS", copy.deepcopy(SEPA), wallet("EURE_GNOSIS")
    )
    opened = await http.post(
        "/v1/intent",
        json={"srcExternalAccountId": accounts[0], "destExternalAccountId": accounts[1],
              "amount": "40.00"},
        headers=bearer(token),
    )  # fmt: skip
    assert opened.status_code == 201, opened.text
    intent_id = opened.json()["intent"]["id"]
    await wait_for_intent(http, token, intent_id, lambda _: len(monerium.profiles) > profiles,
                          within=30)  # fmt: skip
    profile = list(monerium.profiles.values())[-1]
    context = await browser.new_context(viewport={"width": 360, "height": 860})
    context.set_default_timeout(WAIT_MS)
    page = await context.new_page()
    await page.goto(opened.json()["frontendUrl"])

    await expect(page.get_by_role("heading", name="Use what you gave Bridge?")).to_be_visible()
    await expect(page.locator(".sharing__fields")).to_have_text(
        "First name, Last name, Street address, City, Postal code, Country of residence"
    )
    await page.get_by_role("button", name="Share with Monerium").click()
    await expect(page.get_by_role("heading", name="Your identity")).to_be_visible()
    await expect(page.locator(".sharing__note")).to_contain_text("what you gave Bridge")
    # Nothing Bridge gave is asked again.
    await expect(page.get_by_label("First name")).to_have_count(0)
    await expect(page.get_by_label("Street address")).to_have_count(0)
    await expect(page.get_by_role("group", name="Address")).to_have_count(0)
    await page.get_by_label("Date of birth").fill("1990-02-03")
    await page.get_by_label("Nationality").select_option("FR")
    await page.get_by_label("ID document").select_option("NATIONAL_ID")
    await page.get_by_label("Document number").fill("FR1234567")
    await page.get_by_label("Photo or scan of the document").set_input_files(
        {"name": "id.png", "mimeType": "image/png", "buffer": png(8, 8)}
    )
    phone = page.get_by_label("Mobile phone number")
    assert await phone.get_attribute("type") == "tel"
    await phone.fill("0612345678")  # not international: refused on that field
    await page.get_by_role("button", name="Continue").click()
    await expect(phone).to_have_attribute("aria-invalid", "true")
    await phone.fill("+33 6 12 34 56 78")
    await page.get_by_role("button", name="Continue").click()
    await expect(
        page.get_by_role("heading", name="We are reviewing your information")
    ).to_be_visible()
    await context.close()
    details = monerium.calls("PATCH", f"/profiles/{profile['id']}/details")[-1].body["personal"]
    assert (details["firstName"], details["city"], details["country"]) == ("Inès", "Paris", "FR")
    assert (details["phone"], details["nationality"]) == ("+33612345678", "FR")
