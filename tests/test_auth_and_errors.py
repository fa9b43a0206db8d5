"""Authentication failures and bad input: always the one error envelope, never a trace."""

from __future__ import annotations

import base64
import hmac
import json
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.config import Settings
from ramp.security.tokens import CustomerClaims, TokenService
from tests.helpers.errors import assert_envelope
from tests.helpers.projects import ProjectCredentials, bearer, make_project

PROJECT_ENDPOINTS = [
    ("POST", "/v1/customers"),
    ("GET", "/v1/currencies/supported"),
    ("GET", "/v1/providers"),
    ("GET", "/v1/external-accounts/requirements?src=USD&dest=USDC_ETHEREUM"),
]


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def basic(client_id: str, secret: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()}


@pytest.mark.parametrize(("method", "path"), PROJECT_ENDPOINTS)
async def test_project_endpoints_refuse_missing_credentials(
    client: httpx.AsyncClient, method: str, path: str, project: ProjectCredentials
) -> None:
    response = await client.request(method, path, json={"id": "x"})
    body = assert_envelope(response, 401, "MISSING_CREDENTIALS")
    assert body["error"] == "Unauthorized"
    assert response.headers["www-authenticate"].startswith("Basic")


@pytest.mark.parametrize(("method", "path"), PROJECT_ENDPOINTS)
async def test_project_endpoints_refuse_bad_credentials(
    client: httpx.AsyncClient, method: str, path: str, project: ProjectCredentials
) -> None:
    cases = {
        "wrong secret": basic(project.client_id, project.client_secret + "x"),
        "unknown client": basic("ci_sandbox_nobody", project.client_secret),
        "no colon": {"Authorization": "Basic " + base64.b64encode(b"justanid").decode()},
        "not base64": {"Authorization": "Basic !!!"},
        # NUL cannot even be stored in PostgreSQL text: refused before any query.
        "nul in client id": basic("ci_sandbox_\x00" + "0" * 23, project.client_secret),
    }
    for name, headers in cases.items():
        response = await client.request(method, path, json={"id": "x"}, headers=headers)
        assert response.status_code == 401, name
        assert_envelope(response, 401, "INVALID_CREDENTIALS")
    bearer_instead = await client.request(method, path, json={"id": "x"}, headers=bearer("abc"))
    assert_envelope(bearer_instead, 401, "INVALID_AUTH_SCHEME")


async def test_customer_token_is_not_project_credentials(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    response = await client.get("/v1/providers", headers=bearer(customer["access_token"]))
    assert_envelope(response, 401, "INVALID_AUTH_SCHEME")


async def test_customer_endpoints_refuse_bad_tokens(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    customer: dict[str, Any],
    migrated: Settings,
) -> None:
    path = "/v1/customers/external-accounts"
    token = customer["access_token"]
    claims = jwt.decode(token, options={"verify_signature": False})
    header, _payload, signature = token.split(".")
    tampered_payload = _b64(json.dumps({**claims, "sub": "someone-else"}).encode())
    none_alg = jwt.encode(claims, key="", algorithm="none")
    foreign_key = jwt.encode(claims, Ed25519PrivateKey.generate(), algorithm="EdDSA")
    # Algorithm confusion: HS256 keyed with our public key. PyJWT will not make it.
    public_pem = TokenService.from_settings(migrated)._public_key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    hs_header = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    hs_body = _b64(json.dumps(claims).encode())
    hs_signature = _b64(hmac.new(public_pem, f"{hs_header}.{hs_body}".encode(), "sha256").digest())
    hs256 = f"{hs_header}.{hs_body}.{hs_signature}"
    cases = {
        "garbage": "not-a-jwt",
        "tampered payload": f"{header}.{tampered_payload}.{signature}",
        "alg none": none_alg,
        "foreign key": foreign_key,
        "hs256": hs256,
    }
    for name, bad in cases.items():
        response = await client.post(path, json={}, headers=bearer(bad))
        body = assert_envelope(response, 401, "INVALID_TOKEN")
        assert response.headers["www-authenticate"].startswith("Bearer"), name
        assert "POST /customers" in body["message"]
    missing = await client.post(path, json={})
    assert_envelope(missing, 401, "MISSING_CREDENTIALS")
    basic_instead = await client.post(path, json={}, headers=project.basic)
    assert_envelope(basic_instead, 401, "INVALID_AUTH_SCHEME")


async def test_another_projects_credentials_see_another_project(
    client: httpx.AsyncClient, project: ProjectCredentials, db: AsyncSession, migrated: Settings
) -> None:
    other = await make_project(db, migrated, name="Other")
    # A valid pair, but of a different project: authenticates as that project only.
    mixed = basic(project.client_id, other.client_secret)
    response = await client.get("/v1/providers", headers=mixed)
    assert_envelope(response, 401, "INVALID_CREDENTIALS")


async def test_invalid_json_and_wrong_media_type(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    headers = {**project.basic, "Content-Type": "application/json"}
    deep = b"[" * 20_000 + b"]" * 20_000  # within the size limit, beyond the parser
    for raw in (b"{", b"[1, 2]", b'"text"', b'{"id": NaN}', b"\xff\xfe", deep):
        response = await client.post("/v1/customers", content=raw, headers=headers)
        assert_envelope(response, 400, "INVALID_JSON")
    form = await client.post("/v1/customers", data={"id": "x"}, headers=project.basic)
    assert_envelope(form, 415, "UNSUPPORTED_MEDIA_TYPE")


async def test_extra_fields_and_wrong_types_are_refused(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    response = await client.post(
        "/v1/customers",
        json={"id": "x", "surprise": 1, "metadata": "not-an-object"},
        headers=project.basic,
    )
    body = assert_envelope(response, 400, "VALIDATION_ERROR")
    pointers = sorted(field["pointer"] for field in body["details"]["fields"])
    assert pointers == ["/metadata", "/surprise"]


async def test_oversized_body_is_refused(
    client: httpx.AsyncClient, project: ProjectCredentials, migrated: Settings
) -> None:
    big = {"id": "x", "metadata": {"blob": "a" * (migrated.max_body_bytes + 1)}}
    response = await client.post("/v1/customers", json=big, headers=project.basic)
    assert_envelope(response, 413, "PAYLOAD_TOO_LARGE")

    async def chunks() -> Any:
        # No Content-Length: the limit must hold on the streamed bytes too.
        for _ in range(migrated.max_body_bytes // 1024 + 2):
            yield b"a" * 1024

    streamed = await client.post(
        "/v1/customers",
        content=chunks(),
        headers={**project.basic, "Content-Type": "application/json"},
    )
    assert_envelope(streamed, 413, "PAYLOAD_TOO_LARGE")


async def test_unknown_path_and_method(client: httpx.AsyncClient) -> None:
    assert_envelope(await client.get("/v1/nothing-here"), 404, "NOT_FOUND")
    assert_envelope(await client.delete("/v1/customers"), 405, "METHOD_NOT_ALLOWED")


async def test_unexpected_failure_is_an_envelope_and_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.routing import Route

    from api.errors import EXCEPTION_HANDLERS
    from api.request_ids import RequestIds

    async def boom(request: Request) -> None:
        raise RuntimeError("database password is hunter2")

    # Answered by Starlette's outermost middleware, outside ours: the id still comes back.
    app = Starlette(
        routes=[Route("/boom", boom)],
        middleware=[Middleware(RequestIds)],
        exception_handlers=EXCEPTION_HANDLERS,
    )
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
        response = await http.get("/boom")
    body = assert_envelope(response, 500, "INTERNAL_ERROR")
    assert body["error"] == "Internal Server Error"
    assert "hunter2" not in response.text
    assert "unhandled RuntimeError on GET /boom" in caplog.text  # operators learn of it


async def test_nul_characters_are_refused_on_every_database(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    for body in ({"id": "a\u0000b"}, {"id": "x", "metadata": {"k": "v\u0000"}}):
        response = await client.post("/v1/customers", json=body, headers=project.basic)
        assert response.status_code == 400, response.text
    control = await client.post("/v1/customers", json={"id": "a\tb"}, headers=project.basic)
    assert_envelope(control, 400, "VALIDATION_ERROR")


async def test_token_of_a_missing_or_foreign_customer_is_refused(
    client: httpx.AsyncClient, project: ProjectCredentials, migrated: Settings
) -> None:
    tokens = TokenService.from_settings(migrated)
    customer = (await client.post("/v1/customers", json={"id": "u"}, headers=project.basic)).json()
    for claims in (
        CustomerClaims("no-such-customer", project.project_id, project.organization_id, "sandbox"),
        CustomerClaims(customer["id"], "another-project", project.organization_id, "sandbox"),
    ):
        response = await client.post(
            "/v1/customers/external-accounts",
            json={},
            headers=bearer(tokens.issue_customer_token(claims)),
        )
        assert_envelope(response, 401, "INVALID_TOKEN")


async def test_trailing_slash_is_not_redirected(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    response = await client.get("/v1/providers/", headers=project.basic)
    assert_envelope(response, 404, "NOT_FOUND")
