"""Wallet sign-in (Sign-In with Ethereum): nonce, then challenge -> subject token."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from sqlalchemy import update
from sqlmodel import col
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from api.body import read_json
from api.errors import bad_request, unauthorized
from api.render import json_resource
from api.schemas import WalletChallenge, WalletToken
from api.services import services
from api.throttling import throttle_public
from ramp.db.tables import WalletNonce
from ramp.db.types import utcnow
from ramp.identity.wallet import WalletSignInError, verify_sign_in

NO_STORE = {"Cache-Control": "no-store"}
SIWE_CHALLENGE = 'SIWE realm="ramp"'


async def issue_nonce(request: Request) -> Response:
    if request.method == "HEAD":
        # Starlette answers HEAD with the GET endpoint: a probe must not store a nonce.
        return PlainTextResponse("", headers=NO_STORE)
    # Unauthenticated, and each call stores a row: counted per source address.
    await throttle_public(request, "wallet-nonce")
    app = services(request)
    nonce = secrets.token_hex(16)  # EIP-4361: alphanumeric, at least 8 characters
    now = utcnow()
    async with app.db() as session:
        session.add(
            WalletNonce(
                nonce=nonce,
                created_at=now,
                expires_at=now + timedelta(seconds=app.settings.wallet_nonce_ttl_seconds),
            )
        )
        await session.commit()
    return PlainTextResponse(nonce, headers=NO_STORE)


async def verify_challenge(request: Request) -> Response:
    # Unauthenticated, and a verification costs up to a few hundred ms of CPU.
    await throttle_public(request, "wallet-challenge")
    body = await read_json(request, WalletChallenge)
    app = services(request)
    settings = app.settings
    try:
        # Parsing a sign-in message is CPU-bound (up to a few hundred ms): off the loop.
        signed_in = await run_in_threadpool(
            verify_sign_in,
            body.message,
            body.signature,
            domain=settings.expected_wallet_domain,
            uri=settings.expected_wallet_uri,
            chain_id=settings.wallet_chain_id,
            now=datetime.now(UTC),
            max_age=timedelta(seconds=settings.wallet_message_max_age_seconds),
        )
    except WalletSignInError as error:
        if error.code == "SIWE_MALFORMED":
            raise bad_request(error.code, error.message) from error
        raise unauthorized(error.code, error.message, SIWE_CHALLENGE) from error
    # Consumed only after the signature checked out, and atomically: of two requests
    # racing with the same nonce, exactly one wins.
    now = utcnow()
    async with app.db() as session:
        consumed = await session.exec(
            update(WalletNonce)
            .where(
                col(WalletNonce.nonce) == signed_in.nonce,
                col(WalletNonce.consumed_at).is_(None),
                col(WalletNonce.expires_at) > now,
            )
            .values(consumed_at=now)
        )
        await session.commit()
    if consumed.rowcount != 1:
        raise unauthorized(
            "SIWE_NONCE_INVALID",
            "the message's nonce is unknown, expired or already used: get a new one",
            SIWE_CHALLENGE,
        )
    ttl = timedelta(seconds=body.ttl_in_seconds)
    if signed_in.expiration_time is not None:
        # What the wallet signed bounds what we vouch for.
        ttl = min(ttl, signed_in.expiration_time - datetime.now(UTC))
    token = app.tokens.issue_wallet_token(signed_in.address, signed_in.chain_id, ttl)
    return json_resource(WalletToken(token=token), status_code=200)
