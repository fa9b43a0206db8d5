"""The hosted onboarding page in a real browser (headless Chromium), embedded by a host
page on another origin, as a project's app embeds `frontendUrl`.

The service runs over real HTTP (uvicorn on a free port, `RAMP_PUBLIC_URL` set to it)
with the session's worker and Temporal server; the host page is served from
`http://localhost:<other port>`, an origin the project allows. Screenshots of every
step go to test-output/onboarding/<test>/ (with RAMP_UPDATE_DOCS_SCREENSHOT=1 the walk
also refreshes docs/images/onboarding.png).
"""

from __future__ import annotations

import asyncio
import copy
import os
import re
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from playwright.async_api import Browser, ConsoleMessage, FrameLocator, Page, expect

from api.app import create_app
from ramp.config import Settings
from ramp.security.tokens import TokenService
from tests.helpers.browser import chromium, host_app, screenshots_dir, served
from tests.helpers.onboarding import FIRST_NAME, TERMS, kyc_basic, png
from tests.helpers.payments import BTC_ADDRESS, SEPA, register_accounts, wallet
from tests.helpers.projects import ProjectCredentials, bearer
from tests.helpers.servers import derive_settings
from tests.serving import bound_socket

DOCS_IMAGE = Path(__file__).resolve().parent.parent / "docs" / "images" / "onboarding.png"
# Generous for a loaded CI machine; every wait is on a condition, never a fixed sleep.
WAIT_MS = 15_000


# `RAMP_TEST_BROWSER=skip` (a machine without Chromium, by the user's choice) leaves this
# module out with one line in the summary; CI must run it, so there it is an error.
if os.environ.get("RAMP_TEST_BROWSER") == "skip":
    if os.environ.get("CI") == "true":
        pytest.fail("RAMP_TEST_BROWSER=skip is refused in CI: the browser tests must run")
    pytest.skip(
        "browser tests of the hosted onboarding page not run: RAMP_TEST_BROWSER=skip",
        allow_module_level=True,
    )

# About the pages in a browser, not the database (the API under them runs in both
# passes): one of the two passes runs it.
pytestmark = [pytest.mark.usefixtures("worker"), pytest.mark.either_database]


@dataclass(frozen=True)
class Stack:
    api: str  # the service, e.g. http://127.0.0.1:41234
    host_port: int  # the project's app (the embedding page)
    settings: Settings
    browser: Browser

    @property
    def host(self) -> str:
        return f"http://localhost:{self.host_port}"


@pytest.fixture(scope="module")
async def stack(migrated: Settings) -> AsyncIterator[Stack]:
    api_socket = bound_socket()
    host_socket = bound_socket()
    api_url = f"http://127.0.0.1:{api_socket.getsockname()[1]}"
    settings = derive_settings(migrated, RAMP_PUBLIC_URL=api_url)
    async with (
        served(create_app(settings), api_socket),
        served(host_app(), host_socket),
        chromium() as browser,
    ):
        yield Stack(api_url, host_socket.getsockname()[1], settings, browser)


@pytest.fixture
async def http(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=stack.api, timeout=20) as client:
        yield client


@pytest.fixture
async def page(stack: Stack) -> AsyncIterator[Page]:
    # A phone-sized window: the page must be usable at 360 px.
    context = await stack.browser.new_context(
        viewport={"width": 360, "height": 860}, reduced_motion="reduce"
    )
    context.set_default_timeout(WAIT_MS)
    try:
        yield await context.new_page()
    finally:
        await context.close()


async def new_intent(
    http: httpx.AsyncClient,
    stack: Stack,
    project: ProjectCredentials,
    external_id: str,
    accounts: dict[str, Any] | None = None,
    **fields: Any,
) -> tuple[str, str, str]:
    """A customer's first intent, embeddable by the host page: (intent id, frontendUrl,
    customer token)."""
    allowed = await http.put(
        "/v1/project/onboarding-origins",
        json={"origins": [stack.host]},
        headers=project.basic,
    )
    assert allowed.status_code == 200, allowed.text
    customer = await http.post("/v1/customers", json={"id": external_id}, headers=project.basic)
    token = customer.json()["access_token"]
    pair = await register_accounts(http, token, **(accounts or {}))
    created = await http.post(
        "/v1/intent",
        json={
            "srcExternalAccountId": pair[0],
            "destExternalAccountId": pair[1],
            "amount": "100.00",
            **fields,
        },
        headers=bearer(token),
    )
    assert created.status_code == 201, created.text
    envelope = created.json()
    assert envelope["frontendUrl"].startswith(f"{stack.api}/onboarding/")
    return envelope["intent"]["id"], envelope["frontendUrl"], token


async def snapshot(page: Page, frame: FrameLocator, path: Path) -> None:
    """The host page with the whole of the embedded page visible (the window grown to
    fit it for the shot, then restored)."""
    height = await frame.locator("html").evaluate("html => html.scrollHeight")
    size = page.viewport_size
    assert size is not None
    await page.set_viewport_size({"width": size["width"], "height": int(height) + 44})
    await page.screenshot(path=path)
    await page.set_viewport_size(size)


def embedded(page: Page) -> FrameLocator:
    return page.frame_locator("#onboarding")


async def received(page: Page, count: int) -> list[dict[str, Any]]:
    """The host page's messages, once at least `count` have arrived."""
    await page.wait_for_function(f"window.received.length >= {count}", timeout=WAIT_MS)
    messages: list[dict[str, Any]] = await page.evaluate("window.received")
    return messages


async def heading(frame: Page | FrameLocator, text: str) -> None:
    title = frame.get_by_role("heading", level=1, name=text)
    await expect(title).to_be_visible()
    # After each transition the new step's heading has the focus.
    await expect(title).to_be_focused()


async def fits_the_width(frame: FrameLocator) -> None:
    overflow = await frame.locator("html").evaluate("html => html.scrollWidth - html.clientWidth")
    assert overflow <= 0, f"horizontal scroll of {overflow}px at 360px"


async def accept_terms(page: Page, frame: FrameLocator, shots: Path | None = None) -> None:
    await heading(frame, "Terms of service")
    terms = frame.get_by_role("region", name="Atlas Payments (sandbox): terms of service")
    await expect(terms).to_be_visible()
    # Keyboard only: tab to the checkbox, tick it with the space bar, submit with Enter.
    checkbox = frame.get_by_label("I have read and accept the terms of service")
    await checkbox.focus()
    await checkbox.press("Space")
    await expect(checkbox).to_be_checked()
    if shots:
        await snapshot(page, frame, shots / "01-terms.png")
    await frame.get_by_role("button", name="Continue").press("Enter")


async def fill_identity(frame: Page | FrameLocator, last_name: str) -> None:
    await frame.get_by_label("First name").fill(FIRST_NAME)
    await frame.get_by_label("Last name").fill(last_name)
    await frame.get_by_label("Date of birth").fill("1988-07-14")
    await frame.get_by_label("Nationality").select_option("US")
    await frame.get_by_label("Street address").fill("350 Fifth Avenue")
    await frame.get_by_label("City").fill("New York")
    await frame.get_by_label("State or region").fill("NY")
    await frame.get_by_label("Postal code").fill("10118")
    await frame.get_by_label("Country of residence").select_option("US")
    await frame.get_by_label("ID document").select_option("PASSPORT")
    await frame.get_by_label("Document number").fill("X9876543")
    await frame.get_by_label("Photo or scan of the document").set_input_files(
        {"name": "passport.png", "mimeType": "image/png", "buffer": png(8, 8)}
    )


async def test_a_customer_completes_onboarding_inside_the_host_page(
    stack: Stack, http: httpx.AsyncClient, page: Page, project: ProjectCredentials
) -> None:
    shots = screenshots_dir("full_walk")
    intent_id, frontend_url, token = await new_intent(
        http, stack, project, "browser-walk", amount="250.00", autoExecute=True
    )
    await page.goto(f"{stack.host}/host?src={httpx.URL(frontend_url)}")
    frame = embedded(page)

    # The plan, in order, with the current step marked.
    steps = frame.get_by_role("navigation", name="Verification steps").get_by_role("listitem")
    await expect(steps).to_have_text(
        [
            "1Terms of service: Current step",
            "2Your identity: Next",
            "3Source of funds: Next",
        ]
    )
    await fits_the_width(frame)
    await accept_terms(page, frame, shots)

    await heading(frame, "Your identity")
    await fill_identity(frame, last_name="Morgan")
    await fits_the_width(frame)
    await snapshot(page, frame, shots / "02-identity.png")
    await frame.get_by_role("button", name="Continue").click()

    await heading(frame, "Source of funds")
    await expect(steps.nth(0)).to_have_class("step step--done")
    await expect(steps.nth(1)).to_have_class("step step--done")
    await frame.get_by_label("Main source of the funds").select_option("SALARY")
    await frame.get_by_label("Describe the source").fill("Salary as a nurse at Mercy Hospital")
    await snapshot(page, frame, shots / "03-source-of-funds.png")
    await frame.get_by_role("button", name="Continue").click()

    # autoExecute: the deposit instructions of the transaction, with the reference.
    await heading(frame, "You're verified")
    await expect(frame.get_by_role("heading", name="Send your deposit")).to_be_visible()
    reference = frame.locator(".details__row--key .details__value")
    await expect(reference).to_have_text(re.compile(r"^RMP[A-Z0-9]{12}$"))
    await fits_the_width(frame)
    await snapshot(page, frame, shots / "04-deposit.png")

    messages = await received(page, 4)
    origin = stack.api
    assert messages == [
        {
            "origin": origin,
            "type": "STEP_COMPLETED",
            "data": {"intentId": intent_id, "stepCode": "TERMS_OF_SERVICE"},
        },
        {
            "origin": origin,
            "type": "STEP_COMPLETED",
            "data": {"intentId": intent_id, "stepCode": "KYC_BASIC"},
        },
        {
            "origin": origin,
            "type": "STEP_COMPLETED",
            "data": {"intentId": intent_id, "stepCode": "SOURCE_OF_FUNDS"},
        },
        {"origin": origin, "type": "INTENT_COMPLETED", "data": {"intentId": intent_id}},
    ]

    # The API client sees the same outcome.
    envelope = (await http.get(f"/v1/intent/{intent_id}", headers=bearer(token))).json()
    assert envelope["intent"]["status"] == "PROCESSING"
    assert envelope["intent"]["compliancePlan"]["status"] == "COMPLETED"
    shown = await reference.text_content()
    deposit = envelope["transaction"]["context"]["depositInstructions"][0]
    assert deposit["instructions"]["reference"] == shown
    if os.environ.get("RAMP_UPDATE_DOCS_SCREENSHOT") == "1":
        DOCS_IMAGE.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shots / "04-deposit.png", DOCS_IMAGE)


async def test_a_rejected_identity_fails_the_intent_and_close_offers_no_resume(
    stack: Stack, http: httpx.AsyncClient, page: Page, project: ProjectCredentials
) -> None:
    shots = screenshots_dir("rejection")
    intent_id, frontend_url, token = await new_intent(http, stack, project, "browser-reject")
    await page.goto(f"{stack.host}/host?src={httpx.URL(frontend_url)}")
    frame = embedded(page)
    await heading(frame, "Terms of service")

    # Closing tells the host page; it does not cancel the intent, and can be resumed.
    await frame.get_by_role("button", name="Close verification and return to the app").click()
    await heading(frame, "Verification paused")
    await snapshot(page, frame, shots / "01-dismissed.png")
    await frame.get_by_role("button", name="Resume verification").click()

    await accept_terms(page, frame)
    await heading(frame, "Your identity")
    await fill_identity(frame, last_name="Reject")
    await frame.get_by_role("button", name="Continue").click()
    await heading(frame, "We could not verify your account")
    await expect(frame.get_by_text("Reason: identity could not be verified")).to_be_visible()
    await snapshot(page, frame, shots / "02-rejected.png")

    # Once the intent has FAILED, Close says the verification ended: nothing to resume.
    await frame.get_by_role("button", name="Close verification and return to the app").click()
    await heading(frame, "Verification ended")
    await expect(frame.get_by_text("Your verification was not accepted.")).to_be_visible()
    await expect(frame.get_by_role("button", name="Resume verification")).to_have_count(0)
    await expect(frame.get_by_text("Verification paused")).to_have_count(0)
    # Nothing is left to close.
    await expect(
        frame.get_by_role("button", name="Close verification and return to the app")
    ).to_be_hidden()
    await snapshot(page, frame, shots / "03-closed-after-rejection.png")

    messages = await received(page, 4)
    assert [(m["type"], m["data"]) for m in messages] == [
        ("INTENT_DISMISSED", {"intentId": intent_id}),
        ("STEP_COMPLETED", {"intentId": intent_id, "stepCode": "TERMS_OF_SERVICE"}),
        (
            "INTENT_FAILED",
            {"intentId": intent_id, "reason": "KYC_BASIC rejected: identity could not be verified"},
        ),
        ("INTENT_DISMISSED", {"intentId": intent_id}),
    ]
    envelope = (await http.get(f"/v1/intent/{intent_id}", headers=bearer(token))).json()
    assert envelope["intent"]["status"] == "FAILED"
    assert envelope["transaction"] is None


async def test_a_step_under_review_moves_on_when_the_review_decides(
    stack: Stack, http: httpx.AsyncClient, page: Page, project: ProjectCredentials
) -> None:
    shots = screenshots_dir("review")
    intent_id, frontend_url, _ = await new_intent(http, stack, project, "browser-review")
    await page.goto(f"{stack.host}/host?src={httpx.URL(frontend_url)}")
    frame = embedded(page)
    await accept_terms(page, frame)
    await heading(frame, "Your identity")
    await fill_identity(frame, last_name="Review")
    await frame.get_by_role("button", name="Continue").click()
    await heading(frame, "We are reviewing your information")
    await snapshot(page, frame, shots / "01-under-review.png")

    # The reviewer (the sandbox's stand-in) decides; the page notices by itself.
    decided = await http.post(
        f"/v1/sandbox/intents/{intent_id}/compliance-steps/KYC_BASIC",
        json={"outcome": "VERIFIED"},
        headers=project.basic,
    )
    assert decided.status_code == 202, decided.text
    await heading(frame, "Source of funds")
    messages = await received(page, 2)
    assert [m["data"]["stepCode"] for m in messages] == ["TERMS_OF_SERVICE", "KYC_BASIC"]


async def test_an_expired_link_shows_an_error_page(
    stack: Stack, http: httpx.AsyncClient, page: Page, project: ProjectCredentials
) -> None:
    shots = screenshots_dir("expired")
    intent_id, frontend_url, _ = await new_intent(http, stack, project, "browser-expired")
    customer_id = parse_qs(urlsplit(frontend_url).query)["token"][0]
    claims = TokenService.from_settings(stack.settings).verify_onboarding_token(customer_id)
    expired = TokenService.from_settings(stack.settings).issue_onboarding_token(
        intent_id, claims.customer_id, timedelta(seconds=-1)
    )
    url = httpx.URL(f"{stack.api}/onboarding/{intent_id}", params={"token": expired})
    await page.goto(f"{stack.host}/host?src={url}")
    frame = embedded(page)
    await expect(frame.get_by_role("heading", name="This link has expired")).to_be_visible()
    await snapshot(page, frame, shots / "01-expired.png")
    # The error page tells the host nothing.
    assert await page.evaluate("window.received") == []
    # Straight in the browser too.
    response = await page.goto(str(url))
    assert response is not None
    assert response.status == 401
    await expect(page.get_by_role("heading", name="This link has expired")).to_be_visible()


async def test_an_origin_the_project_did_not_allow_cannot_embed_the_page(
    stack: Stack, http: httpx.AsyncClient, page: Page, project: ProjectCredentials
) -> None:
    shots = screenshots_dir("disallowed_origin")
    _, frontend_url, _ = await new_intent(http, stack, project, "browser-foreign")
    refused = asyncio.Event()

    def console(message: ConsoleMessage) -> None:
        if "frame-ancestors" in message.text:
            refused.set()

    page.on("console", console)
    # Same host page, other origin: 127.0.0.1 is not localhost to a browser.
    foreign_host = f"http://127.0.0.1:{stack.host_port}"
    await page.goto(f"{foreign_host}/host?src={httpx.URL(frontend_url)}")
    # Chromium refuses the frame and says why, naming the directive.
    async with asyncio.timeout(WAIT_MS / 1000):
        await refused.wait()
    await page.screenshot(path=shots / "01-refused.png")
    frame = embedded(page)
    await expect(frame.get_by_role("heading", name="Terms of service")).to_have_count(0)
    assert await page.evaluate("window.received") == []


async def test_outside_an_iframe_the_page_returns_to_the_app(
    stack: Stack, http: httpx.AsyncClient, page: Page, project: ProjectCredentials
) -> None:
    done = f"{stack.host}/done"
    intent_id, frontend_url, _ = await new_intent(
        http,
        stack,
        project,
        "browser-redirect",
        accounts={"dest": "BTC_BITCOIN", "destination": wallet("BTC_BITCOIN", BTC_ADDRESS)},
        redirectUrl=done,
    )
    await page.goto(frontend_url)
    await heading(page, "Terms of service")
    # The link's token leaves the address bar (and so the history) once read.
    assert page.url == f"{stack.api}/onboarding/{intent_id}"
    checkbox = page.get_by_label("I have read and accept the terms of service")
    await checkbox.check()
    await page.get_by_role("button", name="Continue").click()
    await heading(page, "Your identity")
    # A reload in the same tab still works (the token is kept for the tab); the bare
    # address in another tab does not.
    await page.reload()
    await heading(page, "Your identity")
    other = await page.context.new_page()
    await other.goto(page.url)
    await expect(other.get_by_role("heading", name="This link is not valid")).to_be_visible()
    await other.close()
    # A missing field is reported next to it, and focused.
    await page.get_by_role("button", name="Continue").click()
    first_name = page.get_by_label("First name")
    await expect(first_name).to_have_attribute("aria-invalid", "true")
    await expect(first_name).to_be_focused()
    first_name_error = page.locator("#field-firstName-error")
    await expect(first_name_error).to_have_text("required")
    # Its error goes as the customer corrects it; the others, and the summary, stay
    # until the next submit.
    await first_name.press_sequentially("Al")
    await expect(first_name).not_to_have_attribute("aria-invalid", "true")
    await expect(first_name_error).to_be_empty()
    await expect(page.get_by_label("Last name")).to_have_attribute("aria-invalid", "true")
    await expect(page.locator("#form-summary")).not_to_be_empty()
    # A choice in a list clears its error too.
    nationality = page.get_by_label("Nationality")
    await expect(nationality).to_have_attribute("aria-invalid", "true")
    await nationality.select_option("US")
    await expect(nationality).not_to_have_attribute("aria-invalid", "true")
    await expect(page.locator("#field-nationality-error")).to_be_empty()
    await fill_identity(page, last_name="Morgan")
    await page.get_by_role("button", name="Continue").click()
    # Beacon needs two steps; with nothing to deposit yet, the page hands back to the app.
    await page.wait_for_url(f"{done}?intentId={intent_id}&status=PENDING")
    await expect(page.get_by_role("heading", name="Back in the app")).to_be_visible()


async def test_what_the_customer_gave_one_provider_is_shared_with_the_next_once_asked(
    stack: Stack, http: httpx.AsyncClient, page: Page, project: ProjectCredentials
) -> None:
    # Identity verified with Atlas, through the onboarding API.
    atlas_id, atlas_url, token = await new_intent(http, stack, project, "browser-share")
    link = parse_qs(urlsplit(atlas_url).query)["token"][0]
    for code, body in (("TERMS_OF_SERVICE", TERMS), ("KYC_BASIC", kyc_basic())):
        done = await http.post(
            f"/v1/onboarding/{atlas_id}/steps/{code}", json=body, headers=bearer(link)
        )
        assert done.status_code == 200, done.text
    # The same customer on a euro route: Meridian asks the identity too.
    pair = await register_accounts(
        http, token, "EUR", "USDC_ETHEREUM", copy.deepcopy(SEPA), wallet("USDC_ETHEREUM")
    )
    created = await http.post(
        "/v1/intent",
        json={"srcExternalAccountId": pair[0], "destExternalAccountId": pair[1],
              "amount": "100.00"},
        headers=bearer(token),
    )  # fmt: skip
    assert created.status_code == 201, created.text
    await page.goto(f"{stack.host}/host?src={httpx.URL(created.json()['frontendUrl'])}")
    frame = embedded(page)
    await heading(frame, "Terms of service")
    await frame.get_by_label("I have read and accept the terms of service").check()
    await frame.get_by_role("button", name="Continue").click()

    # Asked once, before the identity form: the details named, then shared.
    await heading(frame, "Use what you gave Atlas Payments (sandbox)?")
    await expect(frame.locator(".sharing__fields")).to_contain_text("First name, Last name")
    await fits_the_width(frame)
    await snapshot(page, frame, screenshots_dir("sharing") / "01-consent.png")
    await frame.get_by_role("button", name="Share with Meridian EU (sandbox)").click()
    # The identity is submitted with Atlas's data: nothing typed, the next step shown.
    await heading(frame, "Proof of address")
    steps = frame.get_by_role("navigation", name="Verification steps").get_by_role("listitem")
    await expect(steps.nth(1)).to_have_class("step step--done")
