"""Dashboard members made the way the service makes them (`ramp org create`, the setup
or invite link), logged in through the login form, with their cookie and CSRF token."""

from __future__ import annotations

from dataclasses import dataclass
from http.cookies import SimpleCookie
from urllib.parse import urlsplit

import httpx
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.organizations import api_keys, members
from ramp.organizations.access import Principal, Role
from ramp.organizations.sessions import principal_of
from tests.helpers.projects import ProjectCredentials

PASSWORD = "correct horse battery staple"


@dataclass(frozen=True)
class Member:
    organization_id: str
    member_id: str
    email: str
    role: Role
    cookie_name: str
    cookie: str
    csrf: str

    @property
    def read(self) -> dict[str, str]:
        """Headers of a GET with the session cookie."""
        return {"Cookie": f"{self.cookie_name}={self.cookie}"}

    @property
    def write(self) -> dict[str, str]:
        """Headers of a state-changing call: the cookie and the CSRF token."""
        return {**self.read, "X-CSRF-Token": self.csrf}


async def new_organization(
    sessions: async_sessionmaker[AsyncSession], email: str, name: str = "Acme Payments"
) -> members.IssuedLink:
    async with sessions() as session:
        return await members.create_organization(session, name=name, owner_email=email)


async def join(
    http: httpx.AsyncClient, link: members.IssuedLink, password: str = PASSWORD
) -> Member:
    """Follows the link (sets the password: that logs in), then reads the CSRF token."""
    path = urlsplit(link.url("http://x")).path
    response = await http.post(path, data={"password": password, "confirm": password})
    assert response.status_code == 303, response.text
    return await _member(http, response, link.email)


async def login(http: httpx.AsyncClient, email: str, password: str = PASSWORD) -> Member:
    response = await http.post("/dashboard/login", data={"email": email, "password": password})
    assert response.status_code == 303, response.text
    return await _member(http, response, email)


async def _member(http: httpx.AsyncClient, response: httpx.Response, email: str) -> Member:
    jar: SimpleCookie = SimpleCookie()
    jar.load(response.headers["set-cookie"])
    ((name, morsel),) = jar.items()
    # The client does not keep cookies: each test sends the one it means.
    http.cookies.clear()
    session = await http.get("/v1/admin/session", headers={"Cookie": f"{name}={morsel.value}"})
    assert session.status_code == 200, session.text
    body = session.json()
    return Member(
        body["organizationId"], "", email, Role(body["role"]), name, morsel.value, body["csrfToken"]
    )


async def invited(http: httpx.AsyncClient, owner: Member, email: str, role: Role) -> Member:
    """A member invited by `owner` through the admin API, joined through the link."""
    response = await http.post(
        "/v1/admin/invites", json={"email": email, "role": role.value}, headers=owner.write
    )
    assert response.status_code == 201, response.text
    path = urlsplit(response.json()["url"]).path
    joined = await http.post(path, data={"password": PASSWORD, "confirm": PASSWORD})
    assert joined.status_code == 303, joined.text
    return await _member(http, joined, email)


async def owner_api_key(
    sessions: async_sessionmaker[AsyncSession], project: ProjectCredentials
) -> str:
    """An owner API key of the project's organization (made as the dashboard makes it)."""
    owner = Principal(project.organization_id, Role.OWNER, "tests")
    async with sessions() as session:
        created = await api_keys.create_key(session, owner, name="tests", role=Role.OWNER)
    return created.secret


def as_principal(member: Member) -> Principal:
    return Principal(member.organization_id, member.role, member.email)


__all__ = [
    "PASSWORD",
    "Member",
    "as_principal",
    "invited",
    "join",
    "login",
    "new_organization",
    "principal_of",
]
