"""The admin API at the HTTP level: who may do what (the authorization matrix), the
session cookie, CSRF, expiry, logout everywhere, API keys, the audit log."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from api.app import create_app
from ramp.config import Settings
from ramp.db.tables import AuditEvent, DashboardSession
from ramp.db.types import utcnow
from ramp.organizations import sessions as dashboard_sessions
from ramp.organizations.access import Role
from ramp.security.encryption import SecretBox
from tests.helpers.dashboard import (
    PASSWORD,
    Member,
    invited,
    join,
    login,
    new_organization,
)
from tests.helpers.errors import assert_envelope
from tests.helpers.servers import derive_settings, serve

pytestmark = pytest.mark.usefixtures("migrated")


@dataclass(frozen=True)
class Org:
    owner: Member
    developer: Member
    viewer: Member
    stranger: Member  # the owner of another organization
    project_id: str


@pytest.fixture
async def org(client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]) -> Org:
    owner = await join(client, await new_organization(sessions, "owner@acme.test"))
    developer = await invited(client, owner, "dev@acme.test", Role.DEVELOPER)
    viewer = await invited(client, owner, "viewer@acme.test", Role.VIEWER)
    stranger = await join(client, await new_organization(sessions, "boss@other.test", "Other"))
    created = await client.post("/v1/admin/projects", json={"name": "Shop"}, headers=owner.write)
    assert created.status_code == 201, created.text
    return Org(owner, developer, viewer, stranger, created.json()["projectId"])


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    needs: Role
    body: dict[str, Any] | None = None

    def url(self, project_id: str) -> str:
        return "/v1/admin" + self.path.replace("{p}", project_id)

    @property
    def writes(self) -> bool:
        return self.method != "GET"

    @property
    def in_project(self) -> bool:
        return "{p}" in self.path


def _calls() -> list[Call]:
    hook = {"url": "https://hooks.example.com/ramp"}
    return [
        Call("GET", "/projects", Role.VIEWER),
        Call("POST", "/projects", Role.DEVELOPER, {"name": "Another"}),
        Call("GET", "/projects/{p}", Role.VIEWER),
        Call("POST", "/projects/{p}/client-secret/rotate", Role.DEVELOPER, {"graceHours": 0}),
        Call("POST", "/projects/{p}/client-secret/revoke-previous", Role.DEVELOPER),
        Call("GET", "/projects/{p}/webhook-endpoints", Role.VIEWER),
        Call("POST", "/projects/{p}/webhook-endpoints", Role.DEVELOPER, hook),
        Call("GET", "/projects/{p}/webhook-deliveries", Role.VIEWER),
        Call("GET", "/projects/{p}/trusted-issuers", Role.VIEWER),
        Call(
            "POST",
            "/projects/{p}/trusted-issuers",
            Role.DEVELOPER,
            {
                "issuer": "https://id.example.com",
                "audiences": ["shop"],
                "jwksUrl": "https://id.example.com/jwks",
            },
        ),
        Call("GET", "/projects/{p}/onboarding-origins", Role.VIEWER),
        Call(
            "PUT",
            "/projects/{p}/onboarding-origins",
            Role.DEVELOPER,
            {"origins": ["https://shop.example.com"]},
        ),
        Call("GET", "/projects/{p}/intents", Role.VIEWER),
        Call("GET", "/members", Role.OWNER),
        Call("GET", "/api-keys", Role.OWNER),
        Call("POST", "/api-keys", Role.OWNER, {"name": "ci", "role": "viewer"}),
        Call("GET", "/audit-events", Role.VIEWER),
    ]


CALLS = _calls()


async def _send(
    client: httpx.AsyncClient, call: Call, project_id: str, headers: dict[str, str]
) -> httpx.Response:
    return await client.request(call.method, call.url(project_id), json=call.body, headers=headers)


async def test_each_role_may_do_what_its_role_allows_and_nothing_more(
    client: httpx.AsyncClient, org: Org
) -> None:
    for member in (org.viewer, org.developer, org.owner):
        for call in CALLS:
            response = await _send(client, call, org.project_id, member.write)
            if member.role.rank >= call.needs.rank:
                assert response.status_code in (200, 201, 204), (member.role, call, response.text)
            else:
                assert_envelope(response, 403, "FORBIDDEN")


async def test_logged_out_callers_get_401(client: httpx.AsyncClient, org: Org) -> None:
    for call in CALLS:
        body = assert_envelope(await _send(client, call, org.project_id, {}), 401, "NOT_LOGGED_IN")
        assert body["message"] == "log in first"
    unknown = {"Cookie": f"{org.owner.cookie_name}=not-a-session"}
    assert_envelope(await client.get("/v1/admin/projects", headers=unknown), 401, "NOT_LOGGED_IN")


async def test_another_organization_sees_nothing_of_this_one(
    client: httpx.AsyncClient, org: Org
) -> None:
    for call in CALLS:
        response = await _send(client, call, org.project_id, org.stranger.write)
        if call.in_project:
            assert_envelope(response, 404, "NOT_FOUND")
    listed = await client.get("/v1/admin/projects", headers=org.stranger.read)
    assert org.project_id not in listed.text
    audit = await client.get("/v1/admin/audit-events", headers=org.stranger.read)
    assert "owner@acme.test" not in audit.text
    # Its members are not theirs to change either.
    members = (await client.get("/v1/admin/members", headers=org.owner.read)).json()
    developer_id = next(m["id"] for m in members if m["email"] == "dev@acme.test")
    removed = await client.delete(f"/v1/admin/members/{developer_id}", headers=org.stranger.write)
    assert_envelope(removed, 404, "NOT_FOUND")


async def test_a_write_without_the_csrf_token_is_refused(
    client: httpx.AsyncClient, org: Org
) -> None:
    for call in (c for c in CALLS if c.writes):
        response = await _send(client, call, org.project_id, org.owner.read)
        assert_envelope(response, 403, "CSRF_FAILED")
        wrong = {**org.owner.read, "X-CSRF-Token": org.developer.csrf}
        assert_envelope(await _send(client, call, org.project_id, wrong), 403, "CSRF_FAILED")
    listed = (await client.get("/v1/admin/projects", headers=org.owner.read)).json()
    assert [p["name"] for p in listed] == ["Shop"]


async def test_an_expired_session_is_refused_and_ended(
    client: httpx.AsyncClient, org: Org, db: AsyncSession
) -> None:
    await db.exec(update(DashboardSession).values(last_seen_at=utcnow() - timedelta(hours=3)))
    await db.commit()
    for member in (org.owner, org.developer):
        response = await client.get("/v1/admin/projects", headers=member.read)
        assert_envelope(response, 401, "SESSION_EXPIRED")
        again = await client.get("/v1/admin/projects", headers=member.read)
        assert_envelope(again, 401, "NOT_LOGGED_IN")
    # However recently used, a session ends 12 hours after its login.
    fresh = await login(client, "viewer@acme.test")
    await db.exec(update(DashboardSession).values(expires_at=utcnow() - timedelta(seconds=1)))
    await db.commit()
    assert_envelope(
        await client.get("/v1/admin/projects", headers=fresh.read), 401, "SESSION_EXPIRED"
    )


async def test_api_keys_act_with_their_role_until_revoked(
    client: httpx.AsyncClient, org: Org
) -> None:
    created = await client.post(
        "/v1/admin/api-keys", json={"name": "deploy", "role": "developer"}, headers=org.owner.write
    )
    assert created.status_code == 201, created.text
    key = created.json()["key"]
    bearer = {"Authorization": f"Bearer {key}"}
    # No CSRF token needed: a browser never sends this header by itself.
    made = await client.post("/v1/admin/projects", json={"name": "Via key"}, headers=bearer)
    assert made.status_code == 201, made.text
    assert_envelope(await client.get("/v1/admin/members", headers=bearer), 403, "FORBIDDEN")
    foreign = await client.get(f"/v1/admin/projects/{org.project_id}", headers=bearer)
    assert foreign.status_code == 200
    listed = (await client.get("/v1/admin/api-keys", headers=org.owner.read)).json()
    assert key not in str(listed)
    assert listed[0]["prefix"] == key[:10]
    revoked = await client.post(
        f"/v1/admin/api-keys/{created.json()['id']}/revoke", headers=org.owner.write
    )
    assert revoked.status_code == 200
    for call in CALLS:
        response = await _send(client, call, org.project_id, bearer)
        assert_envelope(response, 401, "INVALID_API_KEY")
    unknown = {"Authorization": f"Bearer rk_{uuid.uuid4().hex}"}
    assert_envelope(await client.get("/v1/admin/projects", headers=unknown), 401, "INVALID_API_KEY")


async def test_secrets_are_shown_once_and_never_in_the_audit_log(
    client: httpx.AsyncClient, org: Org
) -> None:
    created = await client.post(
        "/v1/admin/projects", json={"name": "Books"}, headers=org.developer.write
    )
    secret = created.json()["clientSecret"]
    project_id = created.json()["projectId"]
    project = await client.get(f"/v1/admin/projects/{project_id}", headers=org.viewer.read)
    assert secret not in project.text
    rotated = await client.post(
        f"/v1/admin/projects/{project_id}/client-secret/rotate",
        json={"graceHours": 1},
        headers=org.developer.write,
    )
    new_secret = rotated.json()["clientSecret"]
    assert rotated.json()["previousSecretValidUntil"]
    # Both secrets authenticate the public API during the grace period.
    client_id = created.json()["clientId"]
    for value in (secret, new_secret):
        assert (await client.get("/v1/providers", auth=(client_id, value))).status_code == 200
    revoked = await client.post(
        f"/v1/admin/projects/{project_id}/client-secret/revoke-previous",
        headers=org.developer.write,
    )
    assert revoked.json()["previousSecretValidUntil"] is None
    assert (await client.get("/v1/providers", auth=(client_id, secret))).status_code == 401
    invite = await client.post(
        "/v1/admin/invites",
        json={"email": "new@acme.test", "role": "viewer"},
        headers=org.owner.write,
    )
    events = await client.get("/v1/admin/audit-events", headers=org.viewer.read)
    text = events.text
    for hidden in (secret, new_secret, invite.json()["url"].rsplit("/", 1)[1], PASSWORD):
        assert hidden not in text
    actions = [(e["actor"], e["action"]) for e in events.json()]
    assert ("dev@acme.test", "client_secret.rotated") in actions
    assert ("dev@acme.test", "client_secret.previous_revoked") in actions
    assert ("owner@acme.test", "member.invited") in actions
    assert all(e["ip"] for e in events.json())


async def test_logout_everywhere_ends_every_session_of_the_member(
    client: httpx.AsyncClient, org: Org
) -> None:
    second = await login(client, "dev@acme.test")
    response = await client.post(
        "/dashboard/logout-everywhere", data={"csrf_token": second.csrf}, headers=second.read
    )
    assert response.status_code == 303
    for session in (org.developer, second):
        assert_envelope(
            await client.get("/v1/admin/projects", headers=session.read), 401, "NOT_LOGGED_IN"
        )
    assert (await client.get("/v1/admin/projects", headers=org.owner.read)).status_code == 200


# Rounds of the race below, each with this many creates beside the logout: before the
# fix, one round in five or six ended in a 500 (StaleDataError) on PostgreSQL.
LOGOUT_RACES = 20
CREATES_PER_RACE = 10


async def test_api_keys_created_while_the_session_ends_are_201_or_401(
    client: httpx.AsyncClient, org: Org, db: AsyncSession, secret_box: SecretBox
) -> None:
    """Issue 23: `POST /v1/admin/api-keys` ended in an unhandled StaleDataError under
    load. A call resumes its session and, a minute after its last use, writes
    `last_seen_at`; a logout (or logout everywhere, or an expiry) deleting the session
    between the read and the write left that UPDATE without a row. Each call is now
    either served (201) or, its session gone, `401 NOT_LOGGED_IN`."""
    answers: list[int] = []
    for _ in range(LOGOUT_RACES):
        # A fresh session per round (the service's login, not the throttled form).
        logged_in = await dashboard_sessions.login(
            db, email="owner@acme.test", password=PASSWORD, ip="127.0.0.1", secret_box=secret_box
        )
        cookie = {"Cookie": f"{org.owner.cookie_name}={logged_in.token}"}
        csrf = logged_in.session.csrf_token
        # Last used over a minute ago: every call of the burst writes last_seen_at.
        await db.exec(update(DashboardSession).values(last_seen_at=utcnow() - timedelta(minutes=5)))
        await db.commit()
        creates = [
            client.post(
                "/v1/admin/api-keys",
                json={"name": f"race {i}", "role": "viewer"},
                headers={**cookie, "X-CSRF-Token": csrf},
            )
            for i in range(CREATES_PER_RACE)
        ]
        logout = client.post("/dashboard/logout", data={"csrf_token": csrf}, headers=cookie)
        # The logout among the first calls: the later ones read the session before or
        # after its deletion, some of them between their read and their write.
        answered = await asyncio.gather(*creates[:3], logout, *creates[3:])
        logged_out, created = answered[3], answered[:3] + answered[4:]
        assert logged_out.status_code == 303, logged_out.text
        for response in created:
            answers.append(response.status_code)
            if response.status_code != 201:
                assert_envelope(response, 401, "NOT_LOGGED_IN")
    listed = (await client.get("/v1/admin/api-keys", headers=org.owner.read)).json()
    assert len(listed) == answers.count(201)


async def test_the_session_cookie_is_host_prefixed_secure_httponly_and_lax(
    client: httpx.AsyncClient, org: Org
) -> None:
    response = await client.post(
        "/dashboard/login", data={"email": "owner@acme.test", "password": PASSWORD}
    )
    cookie = response.headers["set-cookie"]
    assert cookie.startswith("__Host-ramp_session=")
    for attribute in ("Secure", "HttpOnly", "SameSite=lax", "Path=/"):
        assert attribute.lower() in cookie.lower()
    assert "domain=" not in cookie.lower()
    # Plain http is allowed only on loopback in the sandbox, without the prefix.
    loopback = await client.post(
        "http://127.0.0.1/dashboard/login",
        data={"email": "owner@acme.test", "password": PASSWORD},
    )
    assert loopback.headers["set-cookie"].startswith("ramp_session=")
    assert "secure" not in loopback.headers["set-cookie"].lower()


async def test_the_last_owner_stays_and_a_link_works_once(
    client: httpx.AsyncClient, org: Org, sessions: async_sessionmaker[AsyncSession]
) -> None:
    members = (await client.get("/v1/admin/members", headers=org.owner.read)).json()
    owner_id = next(m["id"] for m in members if m["role"] == "owner")
    demoted = await client.patch(
        f"/v1/admin/members/{owner_id}", json={"role": "viewer"}, headers=org.owner.write
    )
    assert_envelope(demoted, 409, "LAST_OWNER")
    link = await new_organization(sessions, "third@else.test", "Else")
    await join(client, link)
    path = "/dashboard/join/" + link.token
    again = await client.post(path, data={"password": PASSWORD, "confirm": PASSWORD})
    assert again.status_code == 404
    assert "not valid" in again.text
    # An invite revoked before use: its link stops working.
    invite = await client.post(
        "/v1/admin/invites",
        json={"email": "late@acme.test", "role": "viewer"},
        headers=org.owner.write,
    )
    [pending] = (await client.get("/v1/admin/invites", headers=org.owner.read)).json()
    assert pending["email"] == "late@acme.test"
    assert "url" not in pending
    revoked = await client.delete(f"/v1/admin/invites/{pending['id']}", headers=org.owner.write)
    assert revoked.status_code == 204
    assert (await client.get("/v1/admin/invites", headers=org.owner.read)).json() == []
    late = await client.get(urlsplit(invite.json()["url"]).path)
    assert late.status_code == 404


async def test_the_admin_api_is_in_the_openapi_document(client: httpx.AsyncClient) -> None:
    document = (await client.get("/v1/openapi.json")).json()
    admin = {path for path in document["paths"] if path.startswith("/admin/")}
    assert {"/admin/projects", "/admin/members", "/admin/audit-events"} <= admin
    operation = document["paths"]["/admin/projects"]["post"]
    assert {"organizationApiKey": []} in operation["security"]
    assert "403" in operation["responses"]


async def test_a_production_service_always_sets_the_secure_host_cookie(
    migrated: Settings, sessions: async_sessionmaker[AsyncSession]
) -> None:
    production = derive_settings(migrated, RAMP_ENV="production")
    link = await new_organization(sessions, "owner@live.test")
    async with serve(create_app(production)) as client:
        for base in ("http://testserver", "http://127.0.0.1"):
            joined = await client.post(
                f"{base}/dashboard/join/{link.token}" if base.endswith("server") else
                f"{base}/dashboard/login",
                data={"password": PASSWORD, "confirm": PASSWORD, "email": "owner@live.test"},
            )  # fmt: skip
            assert joined.status_code == 303, joined.text
            cookie = joined.headers["set-cookie"]
            assert cookie.startswith("__Host-ramp_session=")
            assert "secure" in cookie.lower()


async def test_logins_are_also_throttled_per_address(migrated: Settings) -> None:
    tight = derive_settings(migrated, RAMP_RATE_LIMIT_PUBLIC="3/60")
    async with serve(create_app(tight)) as client:
        form = {"email": "nobody@acme.test", "password": "whatever it is"}
        for _ in range(3):
            assert (await client.post("/dashboard/login", data=form)).status_code == 401
        refused = await client.post("/dashboard/login", data=form)
        assert refused.status_code == 429
        assert refused.headers["content-type"].startswith("text/html")
        assert "Too many attempts" in refused.text


async def test_the_audit_log_pages_through_everything_it_keeps(
    client: httpx.AsyncClient, org: Org, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """Issue 23: the list ignored `limit` and stopped at the latest 200, so 200 cheap
    audited actions pushed older evidence out of reach."""
    organization_id = org.owner.organization_id
    # Newer than what the fixture did (the organization's first entries), as an
    # attacker's flood would be.
    start = utcnow() + timedelta(minutes=1)
    async with sessions() as session:
        session.add_all(
            AuditEvent(
                id=str(uuid.uuid4()),
                organization_id=organization_id,
                actor="noisy@acme.test",
                action="webhook.changed",
                target=f"endpoint {n}",
                details={},
                ip="127.0.0.1",
                created_at=start + timedelta(seconds=n),
            )
            for n in range(230)
        )
        await session.commit()
    everything: list[dict[str, Any]] = []
    path: str | None = "/v1/admin/audit-events?limit=100"
    pages = 0
    while path is not None:
        answered = await client.get(path, headers=org.viewer.read)
        assert answered.status_code == 200, answered.text
        assert len(answered.json()) <= 100
        everything += answered.json()
        pages += 1
        link = answered.headers.get("link")
        path = None if link is None else link.split(";")[0].strip("<>")
    assert pages == 3
    targets = [e["target"] for e in everything if e["actor"] == "noisy@acme.test"]
    assert targets == [f"endpoint {n}" for n in reversed(range(230))]
    # The oldest entries, the organization's and its first project's, are reached.
    actions = [e["action"] for e in everything]
    assert "project.created" in actions
    assert len({e["id"] for e in everything}) == len(everything)

    small = await client.get("/v1/admin/audit-events?limit=5", headers=org.viewer.read)
    assert len(small.json()) == 5
    default = await client.get("/v1/admin/audit-events", headers=org.viewer.read)
    assert len(default.json()) == 20
    link = default.headers["link"].split(";")[0].strip("<>")
    # The cursor is the organization's: another one's member cannot use it.
    stolen = await client.get(link, headers=org.stranger.read)
    assert_envelope(stolen, 400, "INVALID_CURSOR")
    for bad in ("limit=0", "limit=101", "cursor=nope"):
        refused = await client.get(f"/v1/admin/audit-events?{bad}", headers=org.viewer.read)
        assert refused.status_code == 400, bad

    # The dashboard's page shows the log the same way, 50 entries a page.
    page = await client.get("/dashboard/audit", headers=org.viewer.read)
    assert page.status_code == 200
    assert page.text.count("noisy@acme.test") == 50
    assert "Older changes" in page.text
    older = page.text.split('rel="next"')[0].rsplit('href="', 1)[1].split('"')[0]
    second = await client.get(older.replace("&amp;", "&"), headers=org.viewer.read)
    assert second.status_code == 200, second.text
    assert "endpoint 179" in second.text
    assert "endpoint 180" not in second.text
    assert "Newest changes" in second.text
    # An edited page link, or one of another organization's log: a page saying so (it
    # was the API's JSON envelope, telling a browser to use a Link header).
    for bad in ("cursor=nope", older.replace("&amp;", "&").split("?", 1)[1]):
        as_stranger = bad != "cursor=nope"
        refused = await client.get(
            f"/dashboard/audit?{bad}",
            headers=(org.stranger if as_stranger else org.viewer).read,
        )
        assert refused.status_code == 400, bad
        assert refused.headers["content-type"].startswith("text/html"), refused.text
        assert "No such page of the audit log" in refused.text
