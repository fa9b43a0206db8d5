"""POST /customers with an OIDC ID token from an issuer the project trusts."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp import projects
from tests.helpers.identity_provider import JwksServer, public_jwk, serve_jwks
from tests.helpers.projects import ProjectCredentials

# About OIDC ID tokens, not the database: one of the two passes runs it.
pytestmark = pytest.mark.either_database

ISSUER = "https://login.example/tenant"
AUDIENCE = "ramp-app"
KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture
def idp() -> Iterator[JwksServer]:
    server, stop = serve_jwks()
    server.jwks = {"keys": [public_jwk(KEY, "k1", "RS256")]}
    try:
        yield server
    finally:
        stop()


def id_token(subject: str, key: Any = KEY, **overrides: Any) -> str:
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": subject, "iat": now, "exp": now + 300}
    claims.update(overrides)
    return jwt.encode(claims, key, algorithm="RS256", headers={"kid": "k1"})


async def test_id_token_creates_and_links_a_customer(
    client: httpx.AsyncClient, project: ProjectCredentials, db: AsyncSession, idp: JwksServer
) -> None:
    untrusted = await client.post(
        "/v1/customers", json={"id": "alice", "subject_token": id_token("a")}, headers=project.basic
    )
    assert untrusted.status_code == 400
    assert untrusted.json()["code"] == "UNTRUSTED_ISSUER"

    await projects.trust_issuer(
        db, project_id=project.project_id, issuer=ISSUER, audiences=[AUDIENCE], jwks_url=idp.url
    )
    created = await client.post(
        "/v1/customers", json={"id": "alice", "subject_token": id_token("a")}, headers=project.basic
    )
    assert created.status_code == 201, created.text
    again = await client.post(
        "/v1/customers", json={"id": "alice", "subject_token": id_token("a")}, headers=project.basic
    )
    assert again.status_code == 200
    assert again.json()["id"] == created.json()["id"]

    conflict = await client.post(
        "/v1/customers",
        json={"id": "mallory", "subject_token": id_token("a")},
        headers=project.basic,
    )
    assert conflict.status_code == 409
    assert conflict.json()["code"] == "IDENTITY_ALREADY_LINKED"
    # The refused request created nothing: "mallory" does not exist afterwards.
    mallory = await client.post("/v1/customers", json={"id": "mallory"}, headers=project.basic)
    assert mallory.status_code == 201


async def test_bad_id_tokens_are_refused(
    client: httpx.AsyncClient, project: ProjectCredentials, db: AsyncSession, idp: JwksServer
) -> None:
    await projects.trust_issuer(
        db, project_id=project.project_id, issuer=ISSUER, audiences=[AUDIENCE], jwks_url=idp.url
    )
    other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    cases = {
        "OIDC_AUDIENCE_MISMATCH": id_token("b", aud="someone-else"),
        "OIDC_EXPIRED": id_token("b", exp=int(time.time()) - 3600),
        "OIDC_INVALID_SIGNATURE": id_token("b", key=other_key),
        "OIDC_MALFORMED": "not.a.jwt",
    }
    for reason, token in cases.items():
        response = await client.post(
            "/v1/customers", json={"id": "bob", "subject_token": token}, headers=project.basic
        )
        assert response.status_code == 400, (reason, response.text)
        assert response.json()["code"] == "INVALID_SUBJECT_TOKEN"
        assert response.json()["details"]["reason"] == reason
    # None of them created the customer.
    bob = await client.post("/v1/customers", json={"id": "bob"}, headers=project.basic)
    assert bob.status_code == 201


async def test_issuer_trusted_by_another_project_is_not_trusted_here(
    client: httpx.AsyncClient, project: ProjectCredentials, db: AsyncSession, idp: JwksServer
) -> None:
    from ramp.config import Environment
    from ramp.security.encryption import SecretBox
    from ramp.security.keys import generate_encryption_key

    other = await projects.create_project(
        db,
        name="Other",
        environment=Environment.SANDBOX,
        secret_box=SecretBox(generate_encryption_key()),
    )
    await projects.trust_issuer(
        db, project_id=other.projectId, issuer=ISSUER, audiences=[AUDIENCE], jwks_url=idp.url
    )
    response = await client.post(
        "/v1/customers", json={"id": "carol", "subject_token": id_token("c")}, headers=project.basic
    )
    assert response.status_code == 400
    assert response.json()["code"] == "UNTRUSTED_ISSUER"


async def test_issuer_with_control_characters_is_malformed(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    token = id_token("d", iss="https://login.example/\u0000")
    response = await client.post(
        "/v1/customers", json={"id": "dave", "subject_token": token}, headers=project.basic
    )
    assert response.status_code == 400
    assert response.json()["details"]["reason"] == "OIDC_MALFORMED"
