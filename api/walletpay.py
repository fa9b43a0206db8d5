"""Wallet sign-in (Sign-In with Ethereum): nonce, then challenge -> subject token."""

from __future__ import annotations

from datetime import timedelta

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from api.body import read_json
from api.render import json_resource
from api.schemas import WalletChallenge, WalletToken
from api.services import services
from api.throttling import throttle_public
from ramp.customers.wallet import issue_wallet_nonce, sign_in_with_wallet

NO_STORE = {"Cache-Control": "no-store"}


async def issue_nonce(request: Request) -> Response:
    if request.method == "HEAD":
        # Starlette answers HEAD with the GET endpoint: a probe must not store a nonce.
        return PlainTextResponse("", headers=NO_STORE)
    # Unauthenticated, and each call stores a row: counted per source address.
    await throttle_public(request, "wallet-nonce")
    app = services(request)
    async with app.db() as session:
        nonce = await issue_wallet_nonce(
            session, timedelta(seconds=app.settings.wallet_nonce_ttl_seconds)
        )
    return PlainTextResponse(nonce, headers=NO_STORE)


async def verify_challenge(request: Request) -> Response:
    # Unauthenticated, and a verification costs up to a few hundred ms of CPU.
    await throttle_public(request, "wallet-challenge")
    body = await read_json(request, WalletChallenge)
    app = services(request)
    token = await sign_in_with_wallet(
        app.db,
        message=body.message,
        signature=body.signature,
        requested_ttl=timedelta(seconds=body.ttl_in_seconds),
        settings=app.settings,
        tokens=app.tokens,
    )
    return json_resource(WalletToken(token=token), status_code=200)
