"""POST /customers: create-or-retrieve, the customer token, identity linking."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import httpx
import jwt
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.config import Settings
from ramp.security.tokens import CUSTOMER_AUDIENCE, TokenService
from tests.helpers.projects import ProjectCredentials, bearer, make_project

TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


async def test_creates_then_retrieves_the_same_customer(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    first = await client.post(
        "/v1/customers",
        json={"id": "user-42", "metadata": {"tier": "gold"}},
        headers=project.basic,
    )
    assert first.status_code == 201, first.text
    created = first.json()
    assert set(created) == {
        "id",
        "createdAt",
        "updatedAt",
        "organizationId",
        "projectId",
        "metadata",
        "access_token",
    }
    assert UUID.match(created["id"])
    assert TIMESTAMP.match(created["createdAt"])
    assert TIMESTAMP.match(created["updatedAt"])
    assert created["projectId"] == project.project_id
    assert created["organizationId"] == project.organization_id
    assert created["metadata"] == {"tier": "gold"}

    second = await client.post(
        "/v1/customers",
        json={"id": "user-42", "metadata": {"ignored": True}},
        headers=project.basic,
    )
    assert second.status_code == 200
    retrieved = second.json()
    assert retrieved["id"] == created["id"]
    assert retrieved["metadata"] == {"tier": "gold"}
    assert retrieved["createdAt"] == created["createdAt"]
    # A fresh token on every call.
    assert retrieved["access_token"] != created["access_token"]


async def test_access_token_claims(
    client: httpx.AsyncClient, project: ProjectCredentials, migrated: Settings
) -> None:
    response = await client.post("/v1/customers", json={"id": "u"}, headers=project.basic)
    token = response.json()["access_token"]
    header = jwt.get_unverified_header(token)
    assert header["alg"] == "EdDSA"
    tokens = TokenService.from_settings(migrated)
    claims = jwt.decode(
        token,
        tokens._public_key,
        algorithms=["EdDSA"],
        audience=CUSTOMER_AUDIENCE,
        issuer=migrated.public_url,
    )
    assert claims["sub"] == response.json()["id"]
    assert claims["pid"] == project.project_id
    assert claims["oid"] == project.organization_id
    assert claims["env"] == "sandbox"
    assert claims["exp"] - claims["iat"] == 3600
    assert claims["jti"]


async def test_same_external_id_in_two_projects_gives_two_customers(
    client: httpx.AsyncClient, project: ProjectCredentials, db: AsyncSession, migrated: Settings
) -> None:
    other = await make_project(db, migrated, name="Other")
    mine = (await client.post("/v1/customers", json={"id": "x"}, headers=project.basic)).json()
    theirs = (await client.post("/v1/customers", json={"id": "x"}, headers=other.basic)).json()
    assert mine["id"] != theirs["id"]
    assert theirs["projectId"] == other.project_id


async def test_concurrent_creation_yields_one_customer(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    import asyncio

    responses = await asyncio.gather(
        *[
            client.post("/v1/customers", json={"id": "racer"}, headers=project.basic)
            for _ in range(5)
        ]
    )
    assert all(r.status_code in (200, 201) for r in responses), [r.text for r in responses]
    assert len({r.json()["id"] for r in responses}) == 1
    assert [r.status_code for r in responses].count(201) == 1


async def test_customer_token_is_refused_when_expired(
    client: httpx.AsyncClient, project: ProjectCredentials, migrated: Settings
) -> None:
    customer = (await client.post("/v1/customers", json={"id": "u"}, headers=project.basic)).json()
    tokens = TokenService.from_settings(migrated)
    now = datetime.now(UTC)
    expired = jwt.encode(
        {
            "sub": customer["id"],
            "pid": project.project_id,
            "oid": project.organization_id,
            "env": "sandbox",
            "iss": migrated.public_url,
            "aud": CUSTOMER_AUDIENCE,
            "iat": now - timedelta(hours=2),
            "exp": now - timedelta(hours=1),
            "jti": "x",
        },
        tokens._private_key,
        algorithm="EdDSA",
    )
    response = await client.post(
        "/v1/customers/external-accounts", json={}, headers=bearer(expired)
    )
    assert response.status_code == 401
    assert response.json()["code"] == "TOKEN_EXPIRED"
    assert "POST /customers" in response.json()["message"]


async def test_customer_id_is_required_and_typed(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    for body, pointer in (
        ({}, "/id"),
        ({"id": 5}, "/id"),
        ({"id": ""}, "/id"),
        # Printable only (issue 23): line and paragraph separators, format characters.
        ({"id": "user\u2028one"}, "/id"),
        ({"id": "user\u2029one"}, "/id"),
        ({"id": "user\u200bone"}, "/id"),
    ):
        response = await client.post("/v1/customers", json=body, headers=project.basic)
        assert response.status_code == 400
        error = response.json()
        assert error["code"] == "VALIDATION_ERROR"
        assert [f["pointer"] for f in error["details"]["fields"]] == [pointer]
