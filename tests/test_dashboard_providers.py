"""Providers in the dashboard: a production project's credentials entered (admin API and
the form generated from the schema), checked with the provider (the Bridge simulator),
never shown again; test connection, status with its reason, disable; the mock
providers of a sandbox project; TOTP required for owners once the organization asks."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import httpx
import pyotp
import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.organizations.access import Role
from tests.helpers.dashboard import PASSWORD, Member, invited, join, new_organization
from tests.helpers.errors import assert_envelope
from tests.simulators.bridge import BridgeSimulator, running

KEY = "sk-dashboard-provider-key-0001"

pytestmark = pytest.mark.usefixtures("migrated")


@pytest.fixture(scope="module")
async def bridge() -> AsyncIterator[BridgeSimulator]:
    async with running(BridgeSimulator(api_keys={KEY})) as simulator:
        yield simulator


@pytest.fixture(autouse=True)
def _fresh(bridge: BridgeSimulator) -> None:
    bridge.reset()
    bridge.api_keys.clear()
    bridge.api_keys.add(KEY)


async def _project(client: httpx.AsyncClient, owner: Member, environment: str) -> str:
    made = await client.post(
        "/v1/admin/projects", json={"name": "Live", "environment": environment}, headers=owner.write
    )
    assert made.status_code == 201, made.text
    return str(made.json()["projectId"])


def _credentials(bridge: BridgeSimulator, key: str = KEY) -> dict[str, str]:
    return {"apiKey": key, "environment": "sandbox", "baseUrl": bridge.url}


async def test_an_owner_connects_tests_and_disables_a_provider(
    client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession], bridge: BridgeSimulator
) -> None:
    owner = await join(client, await new_organization(sessions, "owner@acme.test"))
    developer = await invited(client, owner, "dev@acme.test", Role.DEVELOPER)
    project_id = await _project(client, owner, "production")
    base = f"/v1/admin/projects/{project_id}/providers"
    listed = (await client.get(base, headers=developer.read)).json()
    bridge_entry = next(p for p in listed if p["provider"] == "BRIDGE")
    assert bridge_entry["status"] == "NOT_CONNECTED"
    assert bridge_entry["routing"] is False
    assert bridge_entry["credentialsSchema"]["properties"]["apiKey"]["writeOnly"] is True

    body = {"credentials": _credentials(bridge)}
    refused = await client.put(f"{base}/BRIDGE", json=body, headers=developer.write)
    assert_envelope(refused, 403, "FORBIDDEN")
    bad = await client.put(
        f"{base}/BRIDGE",
        json={"credentials": _credentials(bridge, "sk-wrong-key-000")},
        headers=owner.write,
    )
    assert_envelope(bad, 400, "INVALID_CREDENTIALS")
    connected = await client.put(f"{base}/BRIDGE", json=body, headers=owner.write)
    assert connected.status_code == 200, connected.text
    assert connected.json()["status"] == "HEALTHY"
    assert connected.json()["routing"] is True
    assert connected.json()["credentialsHint"] == "apiKey: sk-d…0001"
    everything = [
        await client.get(base, headers=owner.read),
        await client.get(f"/dashboard/projects/{project_id}/providers", headers=owner.read),
        await client.get("/v1/admin/audit-events", headers=owner.read),
        await client.get("/dashboard/audit", headers=owner.read),
    ]
    for response in everything:
        assert response.status_code == 200
        assert KEY not in response.text
    assert "apiKey: sk-d…0001" in everything[1].text

    # The key is revoked at the provider: a test shows it, with the provider's reason.
    bridge.api_keys.clear()
    tested = await client.post(f"{base}/BRIDGE/test", headers=owner.write)
    assert tested.json()["status"] == "UNHEALTHY"
    assert tested.json()["statusReason"]
    assert tested.json()["routing"] is False
    page = await client.get(f"/dashboard/projects/{project_id}/providers", headers=owner.read)
    assert "No provider is routing" in page.text
    # Each route says why it is unavailable: its provider's status and reason.
    assert "<td>USD</td><td>USDC_ETHEREUM</td>" in page.text
    assert "BRIDGE: unhealthy (" in page.text
    routes = (
        await client.get(f"/v1/admin/projects/{project_id}/routes", headers=owner.read)
    ).json()
    usd = next(r for r in routes if (r["from"], r["to"]) == ("USD", "USDC_ETHEREUM"))
    assert usd["available"] is False
    assert usd["reason"].startswith("BRIDGE: unhealthy")
    bridge.api_keys.add(KEY)
    assert (await client.post(f"{base}/BRIDGE/test", headers=owner.write)).json()[
        "status"
    ] == "HEALTHY"
    disabled = await client.post(f"{base}/BRIDGE/disable", headers=owner.write)
    assert disabled.json()["status"] == "DISABLED"
    assert disabled.json()["routing"] is False
    actions = [
        e["action"] for e in (await client.get("/v1/admin/audit-events", headers=owner.read)).json()
    ]
    for action in ("provider.connected", "provider.tested", "provider.disabled"):
        assert action in actions


async def test_the_form_is_generated_from_the_schema_and_sandbox_shows_mocks(
    client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession], bridge: BridgeSimulator
) -> None:
    owner = await join(client, await new_organization(sessions, "owner@acme.test"))
    project_id = await _project(client, owner, "production")
    url = f"/dashboard/projects/{project_id}/providers"
    page = await client.get(url, headers=owner.read)
    assert 'name="cred_apiKey" type="password"' in page.text
    assert '<label for="BRIDGE-cred_environment">Environment</label>' in page.text
    saved = await client.post(
        url + "/BRIDGE",
        data={
            "csrf_token": owner.csrf,
            "action": "save",
            "cred_apiKey": KEY,
            "cred_environment": "sandbox",
            "cred_baseUrl": bridge.url,
        },
        headers=owner.read,
    )
    assert saved.status_code == 303, saved.text
    shown = await client.get(url, headers=owner.read)
    assert "HEALTHY" in shown.text
    assert KEY not in shown.text
    sandbox_id = await _project(client, owner, "sandbox")
    mocks = (
        await client.get(f"/v1/admin/projects/{sandbox_id}/providers", headers=owner.read)
    ).json()
    assert mocks
    assert all(p["mock"] and p["routing"] for p in mocks)
    refused = await client.put(
        f"/v1/admin/projects/{sandbox_id}/providers/BRIDGE",
        json={"credentials": _credentials(bridge)},
        headers=owner.write,
    )
    assert_envelope(refused, 409, "SANDBOX_PROJECT")


async def test_once_required_owners_need_a_totp_code_for_provider_credentials(
    client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession], bridge: BridgeSimulator
) -> None:
    owner = await join(client, await new_organization(sessions, "owner@acme.test"))
    project_id = await _project(client, owner, "production")
    too_soon = await client.put(
        "/v1/admin/security", json={"totpRequired": True}, headers=owner.write
    )
    assert_envelope(too_soon, 400, "TOTP_REQUIRED")
    page = await client.get("/dashboard/security", headers=owner.read)
    seed = re.search(r'id="totp-seed">([A-Z2-7]+)<', page.text)
    assert seed
    enrolled = await client.post(
        "/dashboard/security",
        data={
            "csrf_token": owner.csrf,
            "action": "enroll",
            "seed": seed.group(1),
            "code": pyotp.TOTP(seed.group(1)).now(),
        },
        headers=owner.read,
    )
    assert enrolled.status_code == 303, enrolled.text
    required = await client.put(
        "/v1/admin/security", json={"totpRequired": True}, headers=owner.write
    )
    assert required.status_code == 200, required.text
    url = f"/v1/admin/projects/{project_id}/providers/BRIDGE"
    body = {"credentials": _credentials(bridge)}
    assert_envelope(await client.put(url, json=body, headers=owner.write), 403, "INVALID_TOTP")
    wrong = {**body, "totpCode": "000000"}
    assert_envelope(await client.put(url, json=wrong, headers=owner.write), 403, "INVALID_TOTP")
    with_code = {**body, "totpCode": pyotp.TOTP(seed.group(1)).now()}
    assert (await client.put(url, json=with_code, headers=owner.write)).status_code == 200
    # An owner API key cannot give a code: it cannot change provider credentials now.
    key = await client.post(
        "/v1/admin/api-keys", json={"name": "ops", "role": "owner"}, headers=owner.write
    )
    bearer = {"Authorization": f"Bearer {key.json()['key']}"}
    assert_envelope(await client.put(url, json=with_code, headers=bearer), 403, "TOTP_REQUIRED")
    # The owner's login asks for the code now.
    login = await client.post(
        "/dashboard/login", data={"email": "owner@acme.test", "password": PASSWORD}
    )
    assert login.status_code == 401
    assert 'id="totp"' in login.text
    coded = await client.post(
        "/dashboard/login",
        data={
            "email": "owner@acme.test",
            "password": PASSWORD,
            "totp": pyotp.TOTP(seed.group(1)).now(),
        },
    )
    assert coded.status_code == 303


async def test_several_accounts_of_a_provider_are_listed_reprioritised_and_disabled(
    client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession], bridge: BridgeSimulator
) -> None:
    owner = await join(client, await new_organization(sessions, "owner@acme.test"))
    developer = await invited(client, owner, "dev@acme.test", Role.DEVELOPER)
    project_id = await _project(client, owner, "production")
    base = f"/v1/admin/projects/{project_id}"
    body = {"credentials": _credentials(bridge)}
    first = await client.put(f"{base}/providers/BRIDGE", json=body, headers=owner.write)
    assert first.status_code == 200, first.text
    second = await client.put(
        f"{base}/providers/BRIDGE",
        json={**body, "name": "entity-b", "priority": 10},
        headers=owner.write,
    )
    assert second.status_code == 200, second.text
    bad_name = await client.put(
        f"{base}/providers/BRIDGE", json={**body, "name": "no spaces"}, headers=owner.write
    )
    assert_envelope(bad_name, 400, "VALIDATION_ERROR")
    # Any member reads them: by provider, then priority, then name.
    listed = (await client.get(f"{base}/provider-accounts", headers=developer.read)).json()
    assert [(a["provider"], a["name"], a["priority"]) for a in listed] == [
        ("BRIDGE", "entity-b", 10),
        ("BRIDGE", "default", 100),
    ]
    assert all(a["status"] == a["health"] == "HEALTHY" and a["routing"] for a in listed)
    assert all(KEY not in str(a) for a in listed)
    entity_b, default = listed
    # The routing view lists each account with its health.
    routing = (await client.get(f"{base}/routing", headers=developer.read)).json()
    assert [p["providerAccountId"] for p in routing["providers"]] == [
        entity_b["providerAccountId"],
        default["providerAccountId"],
    ]

    # Owners change the priority (a developer may not); the order follows.
    account = f"{base}/provider-accounts/{default['providerAccountId']}"
    refused = await client.patch(account, json={"priority": 1}, headers=developer.write)
    assert_envelope(refused, 403, "FORBIDDEN")
    out_of_range = await client.patch(account, json={"priority": -1}, headers=owner.write)
    assert_envelope(out_of_range, 400, "VALIDATION_ERROR")
    changed = await client.patch(account, json={"priority": 1}, headers=owner.write)
    assert changed.status_code == 200, changed.text
    assert changed.json()["priority"] == 1
    listed = (await client.get(f"{base}/provider-accounts", headers=owner.read)).json()
    assert [a["name"] for a in listed] == ["default", "entity-b"]
    other = await client.patch(
        f"/v1/admin/projects/{project_id}/provider-accounts/not-an-account",
        json={"priority": 1},
        headers=owner.write,
    )
    assert_envelope(other, 404, "NOT_FOUND")

    # The dashboard shows both; its form sets a priority and disables one account.
    url = f"/dashboard/projects/{project_id}/providers"
    page = await client.get(url, headers=owner.read)
    assert "<code>entity-b</code>" in page.text
    assert "<code>default</code>" in page.text
    form = f"/dashboard/projects/{project_id}/provider-accounts/{entity_b['providerAccountId']}"
    moved = await client.post(
        form,
        data={"csrf_token": owner.csrf, "action": "priority", "priority": "0"},
        headers=owner.read,
    )
    assert moved.status_code == 303, moved.text
    disabled = await client.post(
        form, data={"csrf_token": owner.csrf, "action": "disable"}, headers=owner.read
    )
    assert disabled.status_code == 303, disabled.text
    listed = (await client.get(f"{base}/provider-accounts", headers=owner.read)).json()
    assert [(a["name"], a["priority"], a["status"], a["routing"]) for a in listed] == [
        ("entity-b", 0, "DISABLED", False),
        ("default", 1, "HEALTHY", True),
    ]
    # The provider still routes, through its other account.
    providers = (await client.get(f"{base}/providers", headers=owner.read)).json()
    assert next(p for p in providers if p["provider"] == "BRIDGE")["routing"] is True
    gone = await client.post(
        f"{base}/provider-accounts/{default['providerAccountId']}/disable", headers=owner.write
    )
    assert gone.json()["status"] == "DISABLED"
    providers = (await client.get(f"{base}/providers", headers=owner.read)).json()
    assert next(p for p in providers if p["provider"] == "BRIDGE")["routing"] is False
    actions = [
        e["action"] for e in (await client.get("/v1/admin/audit-events", headers=owner.read)).json()
    ]
    assert "provider.priority" in actions
