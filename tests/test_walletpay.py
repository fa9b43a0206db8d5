"""Wallet sign-in over HTTP: nonce -> signed SIWE message -> token -> customer."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import jwt
from eth_account import Account
from eth_account.messages import encode_defunct
from sqlmodel import func, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.config import Settings
from ramp.db.tables import WalletNonce
from ramp.db.types import utcnow
from ramp.identity.wallet import build_sign_in_message
from tests.helpers.projects import ProjectCredentials


async def nonce(client: httpx.AsyncClient) -> str:
    response = await client.get("/v1/walletpay/auth/nonce")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert response.headers["cache-control"] == "no-store"
    return response.text


async def challenge(client: httpx.AsyncClient, message: str, signature: str) -> httpx.Response:
    return await client.post(
        "/v1/walletpay/auth/challenge", json={"message": message, "signature": signature}
    )


def signed(
    settings: Settings,
    value: str,
    *,
    account: Any = None,
    chain_id: int = 100,
    issued_at: datetime | None = None,
    expiration_time: datetime | None = None,
    domain: str | None = None,
) -> tuple[Any, str, str]:
    account = account or Account.create()
    message = build_sign_in_message(
        domain=domain or settings.expected_wallet_domain,
        uri=settings.expected_wallet_uri,
        address=account.address,
        chain_id=chain_id,
        nonce=value,
        issued_at=issued_at or datetime.now(UTC),
        expiration_time=expiration_time,
    )
    signature = account.sign_message(encode_defunct(text=message)).signature.hex()
    return account, message, "0x" + signature.removeprefix("0x")


async def test_wallet_flow_creates_a_customer(
    client: httpx.AsyncClient, project: ProjectCredentials, migrated: Settings
) -> None:
    first = await nonce(client)
    second = await nonce(client)
    assert first != second
    assert first.isalnum()
    assert len(first) >= 8

    account, message, signature = signed(migrated, first)
    response = await client.post(
        "/v1/walletpay/auth/challenge",
        json={"message": message, "signature": signature, "ttlInSeconds": 120},
    )
    assert response.status_code == 200, response.text
    token = response.json()["token"]
    claims = jwt.decode(token, options={"verify_signature": False})
    assert claims["sub"] == f"eip155:100:{account.address}"
    assert claims["exp"] - claims["iat"] == 120

    created = await client.post(
        "/v1/customers", json={"id": "wallet-user", "subject_token": token}, headers=project.basic
    )
    assert created.status_code == 201, created.text
    again = await client.post(
        "/v1/customers", json={"id": "wallet-user", "subject_token": token}, headers=project.basic
    )
    assert again.status_code == 200
    # The same wallet cannot become a second customer of the project.
    conflict = await client.post(
        "/v1/customers", json={"id": "someone-else", "subject_token": token}, headers=project.basic
    )
    assert conflict.status_code == 409
    assert conflict.json()["code"] == "IDENTITY_ALREADY_LINKED"


async def test_nonce_is_single_use(client: httpx.AsyncClient, migrated: Settings) -> None:
    value = await nonce(client)
    _, message, signature = signed(migrated, value)
    body = {"message": message, "signature": signature}
    assert (await client.post("/v1/walletpay/auth/challenge", json=body)).status_code == 200
    replay = await client.post("/v1/walletpay/auth/challenge", json=body)
    assert replay.status_code == 401
    assert replay.json()["code"] == "SIWE_NONCE_INVALID"


async def test_unknown_nonce_is_refused(client: httpx.AsyncClient, migrated: Settings) -> None:
    _, message, signature = signed(migrated, "abcdef0123456789")
    response = await challenge(client, message, signature)
    assert response.status_code == 401
    assert response.json()["code"] == "SIWE_NONCE_INVALID"


async def test_strict_checks_reach_the_client(
    client: httpx.AsyncClient, migrated: Settings
) -> None:
    cases = {
        "SIWE_CHAIN_MISMATCH": {"chain_id": 1},
        "SIWE_DOMAIN_MISMATCH": {"domain": "evil.example"},
        "SIWE_ISSUED_AT_TOO_OLD": {"issued_at": datetime.now(UTC) - timedelta(hours=2)},
    }
    for code, overrides in cases.items():
        value = await nonce(client)
        _, message, signature = signed(migrated, value, **overrides)  # type: ignore[arg-type]
        response = await challenge(client, message, signature)
        assert response.status_code == 401, (code, response.text)
        assert response.json()["code"] == code
    # A valid message signed by another key.
    value = await nonce(client)
    _, message, signature = signed(migrated, value)
    _, _, other_signature = signed(migrated, value)
    response = await challenge(client, message, other_signature)
    assert response.status_code == 401
    assert response.json()["code"] == "SIWE_BAD_SIGNATURE"
    assert response.headers["www-authenticate"].startswith("SIWE")
    # The refused attempt did not burn the nonce: the right signature still works.
    response = await challenge(client, message, signature)
    assert response.status_code == 200


async def test_malformed_message_and_ttl_bounds(
    client: httpx.AsyncClient, migrated: Settings
) -> None:
    garbage = await client.post(
        "/v1/walletpay/auth/challenge", json={"message": "hello", "signature": "0x00"}
    )
    assert garbage.status_code == 400
    assert garbage.json()["code"] == "SIWE_MALFORMED"
    value = await nonce(client)
    _, message, signature = signed(migrated, value)
    for ttl in (59, 86401, "3600"):
        response = await client.post(
            "/v1/walletpay/auth/challenge",
            json={"message": message, "signature": signature, "ttlInSeconds": ttl},
        )
        assert response.status_code == 400
        assert response.json()["details"]["fields"][0]["pointer"] == "/ttlInSeconds"
    for ttl in (60, 86400):
        value = await nonce(client)
        _, message, signature = signed(migrated, value)
        response = await client.post(
            "/v1/walletpay/auth/challenge",
            json={"message": message, "signature": signature, "ttlInSeconds": ttl},
        )
        assert response.status_code == 200


async def test_expired_wallet_token_is_refused_by_customers(
    client: httpx.AsyncClient, project: ProjectCredentials, migrated: Settings
) -> None:
    from ramp.security.tokens import TokenService

    tokens = TokenService.from_settings(migrated)
    expired = tokens.issue_wallet_token("0x" + "11" * 20, 100, timedelta(seconds=-1))
    response = await client.post(
        "/v1/customers", json={"id": "w", "subject_token": expired}, headers=project.basic
    )
    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_SUBJECT_TOKEN"
    assert response.json()["details"]["reason"] == "WALLET_TOKEN_INVALID"


async def test_expired_nonce_is_refused(
    client: httpx.AsyncClient, migrated: Settings, db: AsyncSession
) -> None:
    value = await nonce(client)
    stored = await db.get(WalletNonce, value)
    assert stored is not None
    stored.expires_at = utcnow() - timedelta(seconds=1)
    db.add(stored)
    await db.commit()
    _, message, signature = signed(migrated, value)
    response = await challenge(client, message, signature)
    assert response.status_code == 401
    assert response.json()["code"] == "SIWE_NONCE_INVALID"


async def test_one_of_concurrent_uses_of_a_nonce_wins(
    client: httpx.AsyncClient, migrated: Settings
) -> None:
    value = await nonce(client)
    _, message, signature = signed(migrated, value)
    body = {"message": message, "signature": signature}
    responses = await asyncio.gather(
        *[client.post("/v1/walletpay/auth/challenge", json=body) for _ in range(8)]
    )
    assert sorted(r.status_code for r in responses) == [200] + [401] * 7


async def test_token_lives_no_longer_than_the_signed_message(
    client: httpx.AsyncClient, migrated: Settings
) -> None:
    value = await nonce(client)
    now = datetime.now(UTC)
    _, message, signature = signed(
        migrated, value, issued_at=now, expiration_time=now + timedelta(minutes=2)
    )
    response = await challenge(client, message, signature)
    assert response.status_code == 200, response.text
    claims = jwt.decode(response.json()["token"], options={"verify_signature": False})
    assert claims["exp"] <= int((now + timedelta(minutes=2)).timestamp()) + 1


async def test_head_does_not_store_a_nonce(client: httpx.AsyncClient, db: AsyncSession) -> None:
    response = await client.head("/v1/walletpay/auth/nonce")
    assert response.status_code == 200
    count = (await db.exec(select(func.count()).select_from(WalletNonce))).one()
    assert count == 0
