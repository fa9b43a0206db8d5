"""Monerium access tokens: OAuth 2 client credentials, cached and renewed before expiry.

`POST /auth/token` (form-encoded `grant_type=client_credentials`, `client_id`,
`client_secret`) answers `{access_token, expires_in, token_type: Bearer}`. A token is
reused until shortly before it expires (a tenth of its life, at most a minute, ahead),
then a new one is taken; concurrent callers in one event loop wait for one fetch.

Where the cache lives (a choice, docs/providers.md): in each process's memory, keyed by
a digest of the host and the client's id and secret. Tokens are not written to the
database: a token is a bearer credential, the API and each worker take their own (one
per process and hour). This assumes that a new client-credentials token leaves the
older ones valid (the OpenAPI document says nothing of revoking them); were it not so,
a process whose token was revoked gets a 401, takes a new token and retries, so the
cost is a round trip, not a failure. An expired
or revoked token (a 401 on an API call) is dropped and replaced once
(ramp/adapters/monerium/client.py): an expired token is never taken for rejected
credentials; only the token endpoint's refusal is.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

# Renew this much of a token's life ahead of its expiry, at most MAX_MARGIN seconds.
MARGIN_SHARE: Final = 0.1
MAX_MARGIN: Final = 60.0


@dataclass(frozen=True)
class AccessToken:
    value: str
    # On the cache's clock (monotonic): when the token is to be renewed.
    renew_at: float

    def __repr__(self) -> str:  # never the bearer value in a log or traceback
        return f"AccessToken(renew_at={self.renew_at:.0f})"


Fetch = Callable[[], Awaitable[tuple[str, float]]]  # -> (token, lifetime in seconds)


def cache_key(base_url: str, client_id: str, client_secret: str) -> str:
    """One entry per host and client; the secret is in the digest so that new
    credentials for the same client never reuse a token of the old ones."""
    material = "\n".join((base_url, client_id, client_secret)).encode()
    return hashlib.sha256(material).hexdigest()


class TokenCache:
    """The process's Monerium tokens, by `cache_key`."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._tokens: dict[str, AccessToken] = {}
        # One lock per event loop and key: a lock is bound to the loop that first
        # waits on it, and tests run several loops in one process.
        self._locks: dict[tuple[int, str], asyncio.Lock] = {}

    async def token(self, key: str, fetch: Fetch) -> str:
        cached = self._fresh(key)
        if cached is not None:
            return cached.value
        lock = self._locks.setdefault((id(asyncio.get_running_loop()), key), asyncio.Lock())
        async with lock:
            cached = self._fresh(key)  # another caller may have fetched meanwhile
            if cached is not None:
                return cached.value
            value, lifetime = await fetch()
            margin = min(MAX_MARGIN, max(lifetime, 0.0) * MARGIN_SHARE)
            self._tokens[key] = AccessToken(value, self._clock() + max(lifetime, 0.0) - margin)
            return value

    def drop(self, key: str, value: str) -> None:
        """Forgets `value` (the provider refused it), unless a newer token replaced it."""
        cached = self._tokens.get(key)
        if cached is not None and cached.value == value:
            del self._tokens[key]

    def clear(self) -> None:
        self._tokens.clear()

    def _fresh(self, key: str) -> AccessToken | None:
        cached = self._tokens.get(key)
        if cached is None or self._clock() >= cached.renew_at:
            return None
        return cached


# The process's cache, shared by every Monerium connector in it.
TOKENS: Final = TokenCache()
