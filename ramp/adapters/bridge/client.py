"""HTTP to Bridge: authentication, idempotency keys, timeouts and error classification.

Every Bridge error becomes one of the contract's provider-neutral errors here, so the
flow modules only ever see parsed JSON or a `ProviderError`:

- a timeout, a transport failure, a 5xx or a 429 -> `ProviderUnavailable` (retry; a
  `Retry-After` header, in seconds or as an HTTP date, becomes `retry_after`);
- a key Bridge does not accept -> `CredentialsRejected` (the provider account becomes
  unhealthy): a 401 (Bridge answers a missing or invalid key so), or a 403 whose code
  or message names the API key;
- any other 4xx -> `ProviderRefused` with Bridge's message and code and its field
  pointer mapped to ours (never retried). That includes a 403 refusing one request (a
  transfer blocked by compliance screening, `aml_violation`; a missing endorsement;
  developer limits) and the 401 `not_allowed` of a rail or feature the account does not
  have: refusals of what was asked, which say nothing about the key, so the account
  stays healthy for every other customer.

Nothing logged here carries a header, a body or a query string: the API key, personal
data and account numbers travel in those.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Self

import httpx

from ramp.adapters.contract import (
    CredentialsRejected,
    ProviderContext,
    ProviderRefused,
    ProviderUnavailable,
)
from ramp.security import outbound
from ramp.security.network import PUBLIC_ONLY, NetworkPolicy

from .credentials import api_key

log = logging.getLogger(__name__)

# Bridge answers in well under a second; a slow answer is an outage, retried later.
TIMEOUT = httpx.Timeout(15.0, connect=5.0)

# The most of an answer's body read (decoded): Bridge's largest answers (lists of 100)
# are tens of KB. A base URL may be an account's override: an endless or gzip-bombed
# body must not fill the worker's memory.
MAX_RESPONSE_BYTES = 4 * 1024 * 1024
# The whole exchange (connect, send, every read) ends within this many times the read
# timeout: a timeout per read alone lets a body that drips a byte at a time hold an
# activity, and its worker slot, for as long as the sender likes.
WHOLE_ANSWER_READS = 2

# Maps Bridge's field key ("account.routing_number") to our JSON pointer, or None.
FieldMapper = Callable[[str], str | None]


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """`Retry-After` as seconds: delta-seconds or an HTTP date (RFC 9110 section 10.2.3)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


@dataclass(frozen=True)
class BridgeError:
    """What Bridge's error body says: `{"code", "message", "source": {"key"}}`."""

    status: int
    code: str | None
    message: str
    key: str | None  # the field Bridge complains about, in its own terms

    def names_the_key(self) -> bool:
        text = f"{self.code or ''} {self.message}".lower().replace("_", " ").replace("-", " ")
        return "api key" in text or "apikey" in text


# Bridge's 401 for a rail or feature the developer account does not have enabled: the
# key is fine, the request is not (its "Transfer errors & recovery" page).
_FEATURE_NOT_ENABLED = "not_allowed"


def _error_details(response: httpx.Response) -> BridgeError:
    status = response.status_code
    fallback = f"Bridge answered {status}"
    try:
        body = response.json()
    except ValueError:
        return BridgeError(status, None, fallback, None)
    if not isinstance(body, dict):
        return BridgeError(status, None, fallback, None)
    code = body.get("code")
    message = body.get("message") or code or fallback
    source = body.get("source")
    key = source.get("key") if isinstance(source, dict) else None
    return BridgeError(status, str(code) if code else None, str(message), str(key) if key else None)


def _rejects_the_key(error: BridgeError) -> bool:
    """Only a key Bridge does not accept condemns the whole account: never one
    customer's or one transfer's refusal."""
    if error.status == 401:
        return error.code != _FEATURE_NOT_ENABLED
    return error.status == 403 and error.names_the_key()


def _classify(response: httpx.Response, fields: FieldMapper | None) -> Exception:
    status = response.status_code
    if status == 429 or status >= 500:
        return ProviderUnavailable(
            f"Bridge unavailable ({status})",
            retry_after=retry_after_seconds(response.headers.get("Retry-After")),
        )
    error = _error_details(response)
    if _rejects_the_key(error):
        return CredentialsRejected(f"Bridge rejected the API key ({status}): {error.message}")
    # Only a field we can name in our own terms becomes a pointer; the message keeps
    # Bridge's wording (and its code, which says why) either way.
    pointer = fields(error.key) if fields and error.key else None
    why = error.message
    if error.code and error.code != error.message:
        why = f"{why} ({error.code})"
    return ProviderRefused(
        f"Bridge refused the request: {why}", {pointer: error.message} if pointer else {}
    )


class BridgeClient:
    """One provider account's view of the Bridge API (use as an async context manager)."""

    def __init__(
        self,
        ctx: ProviderContext,
        *,
        timeout: httpx.Timeout = TIMEOUT,
        network: NetworkPolicy = PUBLIC_ONLY,
    ) -> None:
        self._base_url = ctx.base_url.rstrip("/")
        self._answer_seconds = WHOLE_ANSWER_READS * (timeout.read or TIMEOUT.read or 15.0)
        # The base URL may be an account's override: it reaches only what the network
        # policy permits, checked on the address each connection is made to.
        self._http = outbound.async_client(
            network,
            base_url=self._base_url,
            timeout=timeout,
            headers={"Api-Key": api_key(ctx), "Accept": "application/json"},
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._http.aclose()

    async def get(self, path: str, params: Mapping[str, str] | None = None) -> Any:
        return await self._send("GET", path, params=params)

    async def post(
        self,
        path: str,
        body: Mapping[str, Any],
        *,
        idempotency_key: str,
        fields: FieldMapper | None = None,
    ) -> Any:
        # Bridge requires an Idempotency-Key on every POST (and only on POSTs); ours
        # derive from our own ids, so a retried activity replays the first answer.
        return await self._send(
            "POST",
            path,
            json=dict(body),
            headers={"Idempotency-Key": idempotency_key},
            fields=fields,
        )

    async def put(self, path: str, body: Mapping[str, Any]) -> Any:
        # No Idempotency-Key: Bridge wants none on PUT (a PUT is idempotent by itself).
        return await self._send("PUT", path, json=dict(body))

    async def delete(self, path: str) -> Any:
        return await self._send("DELETE", path)

    async def _send(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        json: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        fields: FieldMapper | None = None,
    ) -> Any:
        try:
            async with asyncio.timeout(self._answer_seconds):
                response = await self._bounded(
                    self._http.build_request(
                        method, path, params=params, json=json, headers=headers
                    )
                )
        except (httpx.TimeoutException, TimeoutError) as exc:
            log.warning("bridge %s %s timed out", method, path)
            raise ProviderUnavailable(
                f"Bridge did not answer in time ({type(exc).__name__})"
            ) from None
        except httpx.TransportError as exc:
            log.warning("bridge %s %s failed: %s", method, path, type(exc).__name__)
            raise ProviderUnavailable(f"Bridge unreachable ({type(exc).__name__})") from None
        log.info("bridge %s %s -> %s", method, path, response.status_code)
        if response.is_success:
            if not response.content:
                return None
            try:
                return response.json()
            except ValueError:
                raise ProviderUnavailable("Bridge answered with a body that is not JSON") from None
        raise _classify(response, fields)

    async def _bounded(self, request: httpx.Request) -> httpx.Response:
        """The answer, its body read up to MAX_RESPONSE_BYTES (ProviderUnavailable past)."""
        try:
            return await outbound.send_bounded(self._http, request, max_bytes=MAX_RESPONSE_BYTES)
        except outbound.ResponseTooLarge:
            log.warning("bridge %s %s: answer over %d bytes", request.method,
                        request.url.path, MAX_RESPONSE_BYTES)  # fmt: skip
            raise ProviderUnavailable(
                f"Bridge answered with a body over {MAX_RESPONSE_BYTES} bytes"
            ) from None
