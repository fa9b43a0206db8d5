"""What a reader sees first: doc pages with no unreplaced placeholders, and the service's
own HTML pages (the hosted onboarding and its error pages) filled in, with a favicon."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import httpx
import pytest

from ramp.config import Settings
from ramp.security.tokens import TokenService
from tests.helpers.onboarding import start_onboarding
from tests.helpers.payments import create_intent, register_accounts

# About docs and HTML pages, not the database: one of the two passes runs it.
pytestmark = pytest.mark.either_database

ROOT = Path(__file__).resolve().parent.parent
DOC_PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# What a template or a generator leaves behind: {{name}} (our HTML templates) or
# {snake_case} (Python's str.format). Paths such as {intentId} are camelCase, and
# JavaScript's `${ts}` has no underscore.
PLACEHOLDER = re.compile(r"\{\{[^{}]*\}\}|(?<!\$)\{[a-z][a-z0-9]*(?:_[a-z0-9]+)+\}")


def placeholders(text: str) -> list[str]:
    return PLACEHOLDER.findall(text)


def test_the_placeholder_check_finds_what_templates_leave() -> None:
    assert placeholders("The sandbox (`{sandbox_base_url}`) uses") == ["{sandbox_base_url}"]
    assert placeholders('<html lang="{{lang}}"><title>{{ title }}</title>') == [
        "{{lang}}",
        "{{ title }}",
    ]
    assert placeholders("GET /v1/intent/{intentId} and `${ts}.${body_text}`") == []


def test_no_doc_page_shows_an_unreplaced_placeholder() -> None:
    found = {
        f"{path.relative_to(ROOT)}:{number}": placeholders(line)
        for path in DOC_PAGES
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if placeholders(line)
    }
    assert found == {}


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.icons: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "link" and values.get("rel") == "icon" and values.get("href"):
            self.icons.append(str(values["href"]))


async def _has_a_served_icon(client: httpx.AsyncClient, url: str, page: str) -> None:
    links = _Links()
    links.feed(page)
    assert len(links.icons) == 1, page
    icon = await client.get(urljoin(url, links.icons[0]))
    assert icon.status_code == 200
    assert icon.headers["content-type"] == "image/svg+xml"
    assert icon.text.startswith("<svg")


@pytest.mark.usefixtures("worker")
async def test_the_onboarding_page_and_its_error_pages_are_filled_in_with_an_icon(
    client: httpx.AsyncClient, customer: dict[str, Any], migrated: Settings
) -> None:
    intent_id, token = await start_onboarding(client, customer["access_token"])
    expired = TokenService.from_settings(migrated).issue_onboarding_token(
        intent_id, customer["id"], timedelta(seconds=-5)
    )
    pages = {
        200: f"/onboarding/{intent_id}?token={token}",
        401: f"/onboarding/{intent_id}?token={expired}",
        404: f"/onboarding/00000000-0000-0000-0000-000000000000?token={token}",
    }
    for status, path in pages.items():
        url = str(client.base_url.join(path))
        page = await client.get(url)
        assert page.status_code == status
        assert placeholders(page.text) == [], page.text
        await _has_a_served_icon(client, url, page.text)


async def test_browsers_find_the_icon_at_the_root(client: httpx.AsyncClient) -> None:
    icon = await client.get("/favicon.ico")
    assert icon.status_code == 200
    assert icon.headers["content-type"] == "image/svg+xml"
    assert icon.headers["x-content-type-options"] == "nosniff"
    assert icon.text.startswith("<svg")


def _version(value: str) -> int | None:
    return uuid.UUID(value).version


@pytest.mark.usefixtures("worker")
async def test_ids_have_the_versions_decisions_md_gives(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    """docs/decisions.md, "Identifiers": random ids for records created on their own,
    UUIDv5 for ids derived from another (an intent from its idempotency key, the
    intent's parts from the intent)."""
    row = next(
        line
        for line in (ROOT / "docs" / "decisions.md").read_text().splitlines()
        if line.startswith("| Identifiers |")
    )
    assert "an intent is UUIDv5 of (customer, `Idempotency-Key`)" in row
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    keyed = await create_intent(client, token, accounts, headers={"Idempotency-Key": "ids-1"})
    plain = await create_intent(client, token, accounts)
    assert (keyed.status_code, plain.status_code) == (201, 201)
    assert _version(customer["id"]) == 4
    assert {_version(account) for account in accounts} == {4}
    assert _version(keyed.json()["intent"]["id"]) == 5
    # Without the header the call's own key is random: the id is still derived from it.
    assert _version(plain.json()["intent"]["id"]) == 5
    for created in (keyed.json()["intent"], plain.json()["intent"]):
        plan = created["compliancePlan"]
        derived = [plan["id"], created["mmPlan"]["id"], *(step["id"] for step in plan["steps"])]
        assert {_version(value) for value in derived} == {5}
