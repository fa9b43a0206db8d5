"""A project's settings changed in the dashboard's pages (plain forms) and through the
admin API: webhook endpoints (events, enable/disable, remove) and a redelivery, trusted
issuers, onboarding origins, members' roles, API keys; each change in the audit log."""

from __future__ import annotations

import asyncio
import re

import httpx
import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.organizations.access import Role
from tests.helpers.dashboard import Member, invited, join, new_organization
from tests.helpers.errors import assert_envelope
from tests.helpers.payments import create_intent, register_accounts
from tests.helpers.webhook_receiver import receiving

pytestmark = pytest.mark.usefixtures("worker")


async def _setup(
    client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> tuple[Member, dict[str, str]]:
    owner = await join(client, await new_organization(sessions, "owner@acme.test"))
    made = await client.post("/v1/admin/projects", json={"name": "Shop"}, headers=owner.write)
    return owner, made.json()


async def _form(
    client: httpx.AsyncClient, member: Member, path: str, **fields: str | list[str]
) -> httpx.Response:
    return await client.post(path, data={"csrf_token": member.csrf, **fields}, headers=member.read)


async def test_webhook_endpoints_in_the_pages_and_a_redelivery(
    client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    owner, project = await _setup(client, sessions)
    pid = project["projectId"]
    page = f"/dashboard/projects/{pid}/webhooks"
    async with receiving() as hooks:
        added = await _form(
            client, owner, page, url=hooks.url, event_types=["INTENT_STATUS_CHANGED"]
        )
        assert added.status_code == 303, added.text
        api = f"/v1/admin/projects/{pid}/webhook-endpoints"
        [endpoint] = (await client.get(api, headers=owner.read)).json()
        assert endpoint["eventTypes"] == ["INTENT_STATUS_CHANGED"]
        path = f"{page}/{endpoint['id']}"
        changed = await _form(
            client, owner, path, action="events",
            event_types=["INTENT_STATUS_CHANGED", "MONEY_MOVEMENT_UPDATED"],
        )  # fmt: skip
        assert changed.status_code == 303
        none = await _form(client, owner, path, action="events")
        assert none.status_code == 400
        assert "at least one event type" in none.text

        auth = (project["clientId"], project["clientSecret"])
        customer = await client.post("/v1/customers", json={"id": "u1"}, auth=auth)
        token = customer.json()["access_token"]
        opened = await create_intent(client, token, await register_accounts(client, token))
        assert opened.status_code == 201
        await hooks.wait_for(lambda received: len(received) >= 1)
        deliveries = f"/v1/admin/projects/{pid}/webhook-deliveries"
        listed: list[dict[str, str]] = []
        for _ in range(100):
            listed = (await client.get(deliveries, headers=owner.read)).json()
            if listed and listed[0]["status"] == "SUCCEEDED":
                break
            await asyncio.sleep(0.05)  # polled: the row is written after the answer
        assert listed[0]["status"] == "SUCCEEDED"
        again = await _form(
            client, owner, f"/dashboard/projects/{pid}/deliveries/{listed[0]['id']}/redeliver"
        )
        assert again.status_code == 303, again.text
        await hooks.wait_for(lambda received: len(received) >= 2)
        # The log pages (it stopped at the latest 100, `limit` ignored, no cursor): one a
        # page, the next through a signed cursor bound to this project's log.
        everything = (await client.get(deliveries, headers=owner.read)).json()
        assert len(everything) >= 2
        first = await client.get(f"{deliveries}?limit=1", headers=owner.read)
        assert [d["id"] for d in first.json()] == [everything[0]["id"]]
        following = first.headers["link"].split(";")[0].strip("<>")
        second = await client.get(following, headers=owner.read)
        assert [d["id"] for d in second.json()] == [everything[1]["id"]]
        crafted = await client.get(f"{deliveries}?cursor=nope", headers=owner.read)
        assert_envelope(crafted, 400, "INVALID_CURSOR")

        disabled = await _form(client, owner, path, action="disable")
        assert disabled.status_code == 303
        [endpoint] = (await client.get(api, headers=owner.read)).json()
        assert endpoint["enabled"] is False
        refused = await client.post(
            f"{deliveries}/{listed[0]['id']}/redeliver", headers=owner.write
        )
        assert_envelope(refused, 409, "ENDPOINT_DISABLED")
        patched = await client.patch(
            f"{api}/{endpoint['id']}", json={"enabled": True}, headers=owner.write
        )
        assert patched.json()["enabled"] is True
        removed = await _form(client, owner, path, action="remove")
        assert removed.status_code == 303
        assert (await client.get(api, headers=owner.read)).json() == []
    actions = [
        e["action"] for e in (await client.get("/v1/admin/audit-events", headers=owner.read)).json()
    ]
    for action in ("webhook.added", "webhook.changed", "webhook.redelivered", "webhook.removed"):
        assert action in actions
    # The audit page reads as prose: each webhook row names its project, details are
    # lists and yes/no (never a Python repr), an action code is one unbroken token.
    audit = (await client.get("/dashboard/audit", headers=owner.read)).text
    rows = [row for row in audit.split("<tr>") if "webhook.added" in row]
    assert len(rows) == 1, audit
    assert f'<a href="/dashboard/projects/{pid}">Shop</a>' in rows[0]
    assert "event types: INTENT_STATUS_CHANGED" in rows[0]
    assert "enabled: yes" in rows[0]
    for repr_ in ("[&#39;", "['", "True", "False", "None"):
        assert repr_ not in audit
    assert '<code class="token">webhook.added</code>' in rows[0]


async def test_issuers_origins_members_and_keys_in_the_pages(
    client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    owner, project = await _setup(client, sessions)
    pid = project["projectId"]
    base = f"/dashboard/projects/{pid}"
    trusted = await _form(
        client, owner, base + "/issuers", issuer="https://id.example.com",
        audiences="shop, app", jwks_url="https://id.example.com/jwks",
    )  # fmt: skip
    assert trusted.status_code == 303, trusted.text
    bad = await _form(
        client, owner, base + "/issuers", issuer="https://id.example.com",
        audiences="shop", jwks_url="http://id.example.com/jwks",
    )  # fmt: skip
    assert bad.status_code == 400
    assert "https" in bad.text
    [issuer] = (
        await client.get(f"/v1/admin/projects/{pid}/trusted-issuers", headers=owner.read)
    ).json()
    assert issuer["audiences"] == ["shop", "app"]
    assert (await _form(client, owner, f"{base}/issuers/{issuer['id']}/remove")).status_code == 303

    origins = await _form(client, owner, base + "/origins", origins="https://shop.example.com\n")
    assert origins.status_code == 303
    wrong = await _form(client, owner, base + "/origins", origins="not an origin")
    assert wrong.status_code == 400
    kept = await client.get(f"/v1/admin/projects/{pid}/onboarding-origins", headers=owner.read)
    assert kept.json()["origins"] == ["https://shop.example.com"]

    fee = await _form(client, owner, base + "/partner-fee", bps="150")
    assert fee.status_code == 303
    read = await client.get(f"/v1/admin/projects/{pid}/partner-fee", headers=owner.read)
    assert read.json() == {"bps": 150}
    too_much = await _form(client, owner, base + "/partner-fee", bps="5000")
    assert too_much.status_code == 400

    viewer = await invited(client, owner, "viewer@acme.test", Role.VIEWER)
    members = (await client.get("/v1/admin/members", headers=owner.read)).json()
    viewer_id = next(m["id"] for m in members if m["email"] == "viewer@acme.test")
    promoted = await _form(
        client, owner, f"/dashboard/members/{viewer_id}", action="role", role="developer"
    )
    assert promoted.status_code == 303
    session = await client.get("/v1/admin/session", headers=viewer.read)
    assert session.json()["role"] == "developer"  # at once, in the live session
    removed = await _form(client, owner, f"/dashboard/members/{viewer_id}", action="remove")
    assert removed.status_code == 303
    assert_envelope(
        await client.get("/v1/admin/projects", headers=viewer.read), 401, "NOT_LOGGED_IN"
    )

    created = await _form(client, owner, "/dashboard/api-keys", name="ci", role="viewer")
    assert created.status_code == 201
    key = re.search(r'id="new-api-key">([^<]+)<', created.text)
    assert key
    bearer = {"Authorization": f"Bearer {key.group(1)}"}
    assert (await client.get("/v1/admin/projects", headers=bearer)).status_code == 200
    keys_page = await client.get("/dashboard/api-keys", headers=owner.read)
    assert key.group(1) not in keys_page.text
    key_id = (await client.get("/v1/admin/api-keys", headers=owner.read)).json()[0]["id"]
    assert (await _form(client, owner, f"/dashboard/api-keys/{key_id}/revoke")).status_code == 303
    assert_envelope(await client.get("/v1/admin/projects", headers=bearer), 401, "INVALID_API_KEY")
    audit = (await client.get("/v1/admin/audit-events", headers=owner.read)).json()
    actions = {e["action"] for e in audit}
    assert {"issuer.trusted", "issuer.removed", "origins.set", "partner_fee.set",
            "member.role_changed", "member.removed", "api_key.created",
            "api_key.revoked"} <= actions  # fmt: skip
