"""Wallet sign-in (Sign-In with Ethereum) use cases: hand out a nonce, then trade a
signed message that names it for a wallet token (a subject token for POST /customers).
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from anyio import to_thread
from sqlalchemy import update
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.config import Settings
from ramp.db.tables import WalletNonce
from ramp.db.types import utcnow
from ramp.errors import InvalidInput, NotAuthenticated, SiweError
from ramp.identity.wallet import WalletSignInError, verify_sign_in
from ramp.security.tokens import TokenService

# The kind of proof a refused sign-in asks for (the API's `WWW-Authenticate: SIWE`).
SIWE = "SIWE"


async def issue_wallet_nonce(session: AsyncSession, ttl: timedelta) -> str:
    """A fresh nonce, stored until `ttl` has passed or a sign-in consumes it."""
    nonce = secrets.token_hex(16)  # EIP-4361: alphanumeric, at least 8 characters
    now = utcnow()
    session.add(WalletNonce(nonce=nonce, created_at=now, expires_at=now + ttl))
    await session.commit()
    return nonce


async def sign_in_with_wallet(
    db: async_sessionmaker[AsyncSession],
    *,
    message: str,
    signature: str,
    requested_ttl: timedelta,
    settings: Settings,
    tokens: TokenService,
) -> str:
    """A wallet token for the address that signed `message`, valid for `requested_ttl`
    at most (and no longer than the message's own expiration).

    Raises InvalidInput for a message that is not a sign-in message, NotAuthenticated
    for one that does not check out (signature, domain, age) or names an unknown, expired
    or used nonce."""
    try:
        # Parsing a sign-in message is CPU-bound (up to a few hundred ms): off the loop.
        signed_in = await to_thread.run_sync(
            lambda: verify_sign_in(
                message,
                signature,
                domain=settings.expected_wallet_domain,
                uri=settings.expected_wallet_uri,
                chain_id=settings.wallet_chain_id,
                now=datetime.now(UTC),
                max_age=timedelta(seconds=settings.wallet_message_max_age_seconds),
            )
        )
    except WalletSignInError as error:
        if error.code is SiweError.SIWE_MALFORMED:
            raise InvalidInput(error.code, error.message) from error
        raise NotAuthenticated(error.code, error.message, SIWE) from error
    # Consumed only after the signature checked out, and atomically: of two requests
    # racing with the same nonce, exactly one wins.
    now = utcnow()
    async with db() as session:
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
        raise NotAuthenticated(
            SiweError.SIWE_NONCE_INVALID,
            "the message's nonce is unknown, expired or already used: get a new one",
            SIWE,
        )
    ttl = requested_ttl
    if signed_in.expiration_time is not None:
        # What the wallet signed bounds what we vouch for.
        ttl = min(ttl, signed_in.expiration_time - datetime.now(UTC))
    return tokens.issue_wallet_token(signed_in.address, signed_in.chain_id, ttl)
