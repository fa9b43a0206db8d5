"""The dashboard's main journeys in a real browser (headless Chromium, the onboarding
tests' setup): an owner sets a password from the setup link, logs in, creates a
project, copies its secret and uses it against the public API, adds a webhook endpoint
and sees a delivery after creating an intent through the public API, and invites a
developer who cannot see the members page; and an owner enables a provider for a
production project with the form generated from its credential schema, and sees the
hint but never the key again.

The service runs over real HTTP on loopback (the sandbox's plain-http cookie) with the
session's worker. Screenshots go to test-output/dashboard/; with
RAMP_UPDATE_DOCS_SCREENSHOT=1 they also refresh docs/images/dashboard-*.png.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from playwright.async_api import Browser, Page, expect
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from api.app import create_app
from ramp.config import Settings
from tests.helpers.browser import chromium, served
from tests.helpers.dashboard import PASSWORD, new_organization
from tests.helpers.payments import create_intent, register_accounts
from tests.helpers.servers import derive_settings
from tests.helpers.webhook_receiver import receiving
from tests.serving import bound_socket
from tests.simulators.bridge import BridgeSimulator, running

DOCS_IMAGES = Path(__file__).resolve().parent.parent / "docs" / "images"
SHOTS = Path(__file__).resolve().parent.parent / "test-output" / "dashboard"
WAIT_MS = 15_000

if os.environ.get("RAMP_TEST_BROWSER") == "skip":
    if os.environ.get("CI") == "true":
        pytest.fail("RAMP_TEST_BROWSER=skip is refused in CI: the browser tests must run")
    pytest.skip(
        "browser tests of the dashboard not run: RAMP_TEST_BROWSER=skip",
        allow_module_level=True,
    )

# About the pages in a browser, not the database (the API under them runs in both
# passes): one of the two passes runs it.
pytestmark = [pytest.mark.usefixtures("worker"), pytest.mark.either_database]


@dataclass(frozen=True)
class Stack:
    api: str
    settings: Settings
    browser: Browser


@pytest.fixture(scope="module")
async def stack(migrated: Settings) -> AsyncIterator[Stack]:
    api_socket = bound_socket()
    api_url = f"http://127.0.0.1:{api_socket.getsockname()[1]}"
    settings = derive_settings(migrated, RAMP_PUBLIC_URL=api_url)
    async with served(create_app(settings), api_socket), chromium() as browser:
        yield Stack(api_url, settings, browser)


async def _shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    await page.screenshot(path=path, full_page=True)
    if os.environ.get("RAMP_UPDATE_DOCS_SCREENSHOT") == "1":
        DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS_IMAGES / f"dashboard-{name}.png")


async def _set_password(page: Page, url: str) -> None:
    await page.goto(url)
    await page.get_by_label("New password").fill(PASSWORD)
    await page.get_by_label("The same password again").fill(PASSWORD)
    await page.get_by_role("button", name="Set password and log in").click()
    await expect(page.get_by_role("heading", name="Projects")).to_be_visible(timeout=WAIT_MS)


async def test_an_owner_runs_a_sandbox_project_from_the_setup_link(
    stack: Stack, sessions: async_sessionmaker[AsyncSession]
) -> None:
    link = await new_organization(sessions, "owner@acme.test")
    context = await stack.browser.new_context(
        base_url=stack.api,
        permissions=["clipboard-read", "clipboard-write"],
        viewport={"width": 1200, "height": 900},
    )
    page = await context.new_page()
    page.set_default_timeout(WAIT_MS)
    await _set_password(page, link.url(stack.api))

    # Out and in again, through the login form.
    await page.get_by_role("button", name="Log out", exact=True).click()
    await expect(page.get_by_role("heading", name="Log in")).to_be_visible()
    await _shot(page, "login")
    # Keyboard only: the skip link first, then the form's fields in order, Enter sends.
    await page.keyboard.press("Tab")
    await expect(page.get_by_role("link", name="Skip to content")).to_be_focused()
    await page.keyboard.press("Tab")
    await page.keyboard.press("Tab")
    await expect(page.get_by_label("Email address")).to_be_focused()
    await page.keyboard.type("owner@acme.test")
    await page.keyboard.press("Tab")
    await expect(page.get_by_label("Password")).to_be_focused()
    await page.keyboard.type(PASSWORD)
    await page.keyboard.press("Enter")
    await expect(page.get_by_role("heading", name="Projects")).to_be_visible()

    # A sandbox project; its secret shown once, copied with the button.
    await page.get_by_label("Name").fill("Acme shop")
    await page.get_by_role("button", name="Create project").click()
    await expect(page.get_by_role("heading", name="Project created")).to_be_visible()
    client_id = (await page.locator("#new-client-id").inner_text()).strip()
    await page.get_by_role("button", name="Copy").click()
    await expect(page.get_by_role("button", name="Copied")).to_be_visible()
    secret = await page.evaluate("navigator.clipboard.readText()")
    assert secret == (await page.locator("#new-client-secret").inner_text()).strip()
    await _shot(page, "project-created")
    await page.goto("/dashboard")
    assert secret not in await page.content()

    async with httpx.AsyncClient(base_url=stack.api, timeout=15) as api, receiving() as hooks:
        providers = await api.get("/v1/providers", auth=(client_id, secret))
        assert providers.status_code == 200, providers.text

        # A webhook endpoint, added in the pages.
        await page.get_by_role("link", name="Acme shop").click()
        await _shot(page, "project")
        await page.get_by_role("link", name="Webhooks").click()
        await page.get_by_label("URL").fill(hooks.url)
        await page.get_by_role("button", name="Add endpoint").click()
        await expect(page.get_by_text(hooks.url)).to_be_visible()

        # An intent through the public API, with the copied credentials.
        customer = await api.post("/v1/customers", json={"id": "user-1"}, auth=(client_id, secret))
        assert customer.status_code == 201, customer.text
        token = customer.json()["access_token"]
        accounts = await register_accounts(api, token)
        opened = await create_intent(api, token, accounts)
        assert opened.status_code == 201, opened.text
        intent_id = opened.json()["intent"]["id"]
        await hooks.wait_for(lambda received: len(received) >= 1)

        # The delivery in the log (its row is written after the answer: reload until then).
        deliveries = page.locator("table.deliveries")
        for _ in range(50):
            await page.reload()
            if "SUCCEEDED" in await page.content():
                break
            await page.wait_for_timeout(200)
        await expect(deliveries.get_by_text("SUCCEEDED").first).to_be_visible()
        await _shot(page, "webhooks")

        # The intent, from the list.
        await page.get_by_role("link", name="Intents").click()
        await page.get_by_role("link", name=intent_id[:8]).click()
        await expect(page.get_by_role("heading", name="Compliance plan")).to_be_visible()
        await expect(page.get_by_role("heading", name="Sandbox tools")).to_be_visible()
        await _shot(page, "intent")

    # A developer, invited with a link shown once.
    await page.get_by_role("link", name="Members").click()
    await page.get_by_label("Email address").fill("dev@acme.test")
    await page.get_by_label("Role", exact=True).select_option("developer")
    await page.get_by_role("button", name="Create invite link").click()
    invite_url = (await page.locator("#invite-url").inner_text()).strip()
    await _shot(page, "members")
    await page.get_by_role("link", name="Audit log").click()
    await expect(page.get_by_text("member.invited")).to_be_visible()
    assert secret not in await page.content()
    await _shot(page, "audit")

    developer = await stack.browser.new_context(base_url=stack.api)
    dev_page = await developer.new_page()
    dev_page.set_default_timeout(WAIT_MS)
    await _set_password(dev_page, invite_url)
    await expect(dev_page.get_by_role("link", name="Acme shop")).to_be_visible()
    await expect(dev_page.get_by_role("link", name="Members")).to_have_count(0)
    refused = await dev_page.goto(f"{stack.api}/dashboard/members")
    assert refused is not None
    assert refused.status == 403
    await expect(dev_page.get_by_role("heading", name="Not allowed")).to_be_visible()
    await developer.close()

    # Usable at 360 px: nothing wider than the screen.
    await page.set_viewport_size({"width": 360, "height": 740})
    await page.get_by_role("link", name="Projects").click()
    width = await page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360
    await _shot(page, "home-360")
    # Wide tables scroll inside their own box: no page is wider than the screen.
    await page.get_by_role("link", name="Acme shop").click()
    for tab, heading in (
        ("Webhooks", "Webhooks"),
        ("Intents", "Intents"),
        ("Providers", "Providers"),
        ("Credentials & settings", "Acme shop"),
    ):
        await page.get_by_role("link", name=tab).click()
        await expect(page.get_by_role("heading", level=1, name=heading)).to_be_visible()
        assert await page.evaluate("document.documentElement.scrollWidth") <= 360, tab
    # On a phone the intents table is one card per intent: its Provider and Customer
    # (by the project's id) are on the screen, not off to the side.
    await page.get_by_role("link", name="Intents").click()
    for label in ("Provider", "Customer"):
        cell = page.locator(f'table.records td[data-label="{label}"]').first
        await cell.scroll_into_view_if_needed()
        await expect(cell).to_be_in_viewport()
        box = await cell.bounding_box()
        assert box is not None
        assert box["x"] + box["width"] <= 360, (label, box)
    await expect(page.locator('td[data-label="Customer"]').first).to_have_text("user-1")
    assert await page.locator(".scroll").first.evaluate("e => e.scrollWidth <= e.clientWidth")
    await _shot(page, "intents-360")
    # The audit log's action codes are never broken mid-word.
    await page.get_by_role("link", name="Audit log").click()
    code = page.locator("code.token", has_text="webhook.added").first
    lines = await code.evaluate(
        "e => e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight)"
    )
    assert lines < 1.5, lines
    # ... and each entry's project and details are on the screen too.
    for label in ("Project", "Details"):
        cell = page.locator(f'tr:has(code:text("webhook.added")) td[data-label="{label}"]')
        box = await cell.bounding_box()
        assert box is not None
        assert box["x"] + box["width"] <= 360, (label, box)
    await _shot(page, "audit-360")
    # The TOTP enrolment's URI: in a box of its own that fits the screen, wrapped at its
    # parts, copied whole by its button.
    await page.get_by_role("link", name="Security").click()
    uri = page.locator("#totp-uri")
    box = await uri.bounding_box()
    assert box is not None
    assert box["x"] + box["width"] <= 360, box
    assert await uri.evaluate("e => e.scrollWidth <= e.clientWidth")
    text = (await uri.inner_text()).strip()
    assert text.startswith("otpauth://totp/")
    assert "secret=" in text
    await _shot(page, "security-360")
    await page.locator('button[data-copy="totp-uri"]').click()
    assert await page.evaluate("navigator.clipboard.readText()") == text
    await context.close()


BRIDGE_KEY = "sk-browser-bridge-key-7731"


async def test_an_owner_enables_a_provider_and_sees_only_the_hint(
    stack: Stack, sessions: async_sessionmaker[AsyncSession]
) -> None:
    link = await new_organization(sessions, "owner@live.test", "Live Payments")
    context = await stack.browser.new_context(
        base_url=stack.api, viewport={"width": 1200, "height": 900}
    )
    page = await context.new_page()
    page.set_default_timeout(WAIT_MS)
    async with running(BridgeSimulator(api_keys={BRIDGE_KEY})) as bridge:
        await _set_password(page, link.url(stack.api))
        await page.get_by_label("Name").fill("Live shop")
        await page.get_by_label("Production").check()
        await page.get_by_role("button", name="Create project").click()
        await page.get_by_role("link", name="Open the project").click()
        await page.get_by_role("link", name="Providers").click()
        await expect(page.get_by_text("No provider is routing")).to_be_visible()
        # Each provider of the roster has its own card (Bridge and Monerium).
        card = page.get_by_role("region", name="Bridge BRIDGE")
        await card.get_by_label("API key").fill(BRIDGE_KEY)
        await card.get_by_label("Environment").select_option("sandbox")
        await card.get_by_label("Base URL (optional)").fill(bridge.url)
        await card.get_by_role("button", name="Save and check credentials").click()
        await expect(page.locator("#status-BRIDGE")).to_have_text("HEALTHY")
        await expect(page.locator("#hint-BRIDGE")).to_have_text("apiKey: sk-b…7731")
        assert BRIDGE_KEY not in await page.content()
        assert await card.get_by_label("API key").input_value() == ""
        await _shot(page, "providers")
        await card.get_by_role("button", name="Test connection").click()
        await expect(page.locator("#status-BRIDGE")).to_have_text("HEALTHY")
        await page.get_by_role("link", name="Audit log").click()
        await expect(page.get_by_text("provider.connected")).to_be_visible()
        assert BRIDGE_KEY not in await page.content()
    await context.close()
