"""The dashboard's pages over HTTP: each renders for who may see it, forms need their
CSRF token, another organization's pages are 404, and the pages carry their headers.
(The journeys in a real browser: tests/test_dashboard_browser.py.)"""

from __future__ import annotations

import re

import httpx
import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp import projects
from ramp.config import Environment, Settings
from ramp.organizations import members
from ramp.organizations.access import Role
from ramp.security.encryption import SecretBox
from tests.helpers.dashboard import Member, invited, join, new_organization

# About who sees the dashboard's pages, not the database: one of the two passes runs it.
pytestmark = [pytest.mark.either_database, pytest.mark.usefixtures("migrated")]


def _secret(page: str, element_id: str) -> str:
    found = re.search(rf'id="{element_id}">([^<]+)<', page)
    assert found, page
    return found.group(1)


async def _owner(
    client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession], email: str
) -> Member:
    return await join(client, await new_organization(sessions, email))


async def test_a_project_made_in_the_pages_works_against_the_public_api(
    client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    owner = await _owner(client, sessions, "owner@acme.test")
    home = await client.get("/dashboard", headers=owner.read)
    assert home.status_code == 200
    assert "No project yet" in home.text
    assert 'href="/v1/docs"' in home.text  # the API reference, from every page
    # A sandbox server says where its demo project is, and what a production project
    # made here is.
    assert "belongs to the first organization made with" in home.text
    assert "This server runs the sandbox" in home.text
    for header in ("content-security-policy", "x-frame-options", "referrer-policy"):
        assert header in home.headers
    created = await client.post(
        "/dashboard/projects",
        data={"csrf_token": owner.csrf, "name": "Shop", "environment": "sandbox"},
        headers=owner.read,
    )
    assert created.status_code == 201, created.text
    client_id = _secret(created.text, "new-client-id")
    secret = _secret(created.text, "new-client-secret")
    assert (await client.get("/v1/providers", auth=(client_id, secret))).status_code == 200
    # Shown once: the list shows the client id, never the secret.
    again = await client.get("/dashboard", headers=owner.read)
    assert client_id in again.text
    assert secret not in again.text
    project_id = re.search(r'href="/dashboard/projects/([0-9a-f-]+)"', again.text)
    assert project_id
    base = f"/dashboard/projects/{project_id.group(1)}"
    for path in (base, base + "/webhooks", base + "/intents", "/dashboard/audit"):
        page = await client.get(path, headers=owner.read)
        assert page.status_code == 200, (path, page.text)
        assert secret not in page.text
        title = re.search(r"<title>(.*?)</title>", page.text, re.S)
        assert title, path
        assert "<" not in title.group(1), (path, title.group(1))
    project_page = await client.get(base, headers=owner.read)
    assert "<title>Shop · Ramp</title>" in project_page.text
    # The partner fee section is on the page once, in its body.
    assert project_page.text.count('id="fee"') == 1
    rotated = await client.post(
        base + "/rotate-secret",
        data={"csrf_token": owner.csrf, "grace_hours": "0"},
        headers=owner.read,
    )
    assert rotated.status_code == 200, rotated.text
    new_secret = _secret(rotated.text, "rotated-secret")
    assert (await client.get("/v1/providers", auth=(client_id, secret))).status_code == 401
    assert (await client.get("/v1/providers", auth=(client_id, new_secret))).status_code == 200
    added = await client.post(
        base + "/webhooks",
        data={
            "csrf_token": owner.csrf,
            "url": "https://hooks.example.com/x",
            "event_types": ["INTENT_STATUS_CHANGED"],
        },
        headers=owner.read,
    )
    assert added.status_code == 303, added.text
    listed = await client.get(base + "/webhooks", headers=owner.read)
    assert "https://hooks.example.com/x" in listed.text
    audit = await client.get("/dashboard/audit", headers=owner.read)
    for action in ("project.created", "client_secret.rotated", "webhook.added"):
        assert action in audit.text


async def test_forms_need_the_csrf_token_and_pages_a_login(
    client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    owner = await _owner(client, sessions, "owner@acme.test")
    refused = await client.post("/dashboard/projects", data={"name": "Shop"}, headers=owner.read)
    assert refused.status_code == 403
    assert "CSRF" in refused.text
    assert "Shop" not in (await client.get("/dashboard", headers=owner.read)).text
    logged_out = await client.get("/dashboard")
    assert logged_out.status_code == 303
    assert logged_out.headers["location"] == "/dashboard/login"
    login = await client.get("/dashboard/login")
    assert login.status_code == 200
    assert '<label for="email">' in login.text


async def test_a_developer_cannot_see_members_nor_anyone_another_organization(
    client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    owner = await _owner(client, sessions, "owner@acme.test")
    developer = await invited(client, owner, "dev@acme.test", Role.DEVELOPER)
    home = await client.get("/dashboard", headers=developer.read)
    assert 'href="/dashboard/members"' not in home.text
    members = await client.get("/dashboard/members", headers=developer.read)
    assert members.status_code == 403
    assert "dev@acme.test" not in members.text.split("</header>", 1)[1]
    assert (await client.get("/dashboard/members", headers=owner.read)).status_code == 200
    other = await _owner(client, sessions, "boss@other.test")
    made = await client.post(
        "/v1/admin/projects", json={"name": "Secret shop"}, headers=owner.write
    )
    project_id = made.json()["projectId"]
    for path in ("", "/webhooks", "/intents", "/intents/nope"):
        page = await client.get(f"/dashboard/projects/{project_id}{path}", headers=other.read)
        assert page.status_code == 404, path
        assert "Secret shop" not in page.text


async def test_the_first_organization_gets_the_unclaimed_demo_project(
    client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession], migrated: Settings
) -> None:
    # The demo project as `ramp dev` makes it: in an organization nobody belongs to.
    async with sessions() as session:
        demo = await projects.create_project(
            session,
            name="Demo sandbox project",
            environment=Environment.SANDBOX,
            secret_box=SecretBox.from_settings(migrated),
        )
    first = await new_organization(sessions, "first@acme.test")
    second = await new_organization(sessions, "second@acme.test")
    async with sessions() as session:
        adopted = await members.adopt_unclaimed_project(
            session, organization_id=first.organization_id, project_id=demo.projectId
        )
        assert adopted
        # Once an organization has it, nobody else can take it.
        assert not await members.adopt_unclaimed_project(
            session, organization_id=second.organization_id, project_id=demo.projectId
        )
    owner = await join(client, first)
    home = await client.get("/dashboard", headers=owner.read)
    assert f'href="/dashboard/projects/{demo.projectId}"' in home.text
    other = await join(client, second)
    assert demo.projectId not in (await client.get("/dashboard", headers=other.read)).text
