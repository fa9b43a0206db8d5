"""HTTP to Monerium: the bearer token, the v2 media type, timeouts and error sorting.

Every call carries `Accept: application/vnd.monerium.api-v2+json` and a bearer token
from ramp/adapters/monerium/tokens.py. Every Monerium error becomes one of the
contract's provider-neutral errors here (the activity boundary then maps them onto the
`ProviderCallError` types of ramp/errors.py), so the flow modules see parsed JSON or a
`ProviderError`:

- a timeout, a transport failure, a 5xx or a 429 -> `ProviderUnavailable` (retry;
  `Retry-After` becomes `retry_after`);
- the token endpoint refusing the client (400 `invalid_client`-like answers, 401) ->
  `CredentialsRejected` (the account becomes unhealthy);
- a 401 on an API call: the token expired or was revoked, not the credentials: the
  token is dropped, a new one taken, and the call sent once more; a second 401 with a
  fresh token -> `CredentialsRejected`;
- a 403 (the application lacks a partner privilege, or the profile is not the
  caller's) and any other 4xx -> `ProviderRefused` with Monerium's message and its
  `errors` map turned into our JSON pointers where we can name the field (never
  retried). A caller that expects a status (409 "exists", 304 "not modified") lists it
  in `expect` and gets the answer instead.

Nothing logged here carries a header, a body or a query string: the token, personal
data and IBANs travel in those.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, Final, Self

import httpx

from ramp.adapters.bridge.client import retry_after_seconds
from ramp.adapters.contract import (
    CredentialsRejected,
    ProviderContext,
    ProviderRefused,
    ProviderUnavailable,
)
from ramp.security import outbound
from ramp.security.network import PUBLIC_ONLY, NetworkPolicy

from .credentials import client_credentials
from .tokens import TOKENS, TokenCache, cache_key

log = logging.getLogger(__name__)

MEDIA_TYPE: Final = "application/vnd.monerium.api-v2+json"
TOKEN_PATH: Final = "/auth/token"  # noqa: S105 (a path, not a secret)
TIMEOUT = httpx.Timeout(15.0, connect=5.0)
MAX_RESPONSE_BYTES = 4 * 1024 * 1024
WHOLE_ANSWER_READS = 2

# Monerium's field name (a key of an error's `errors` map) -> our JSON pointer, or None.
FieldMapper = Callable[[str], str | None]


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any


def _error_details(response: httpx.Response) -> tuple[str, dict[str, str]]:
    """Monerium's error body: `{code, status, message, errors: {field: complaint}}`."""
    fallback = f"Monerium answered {response.status_code}"
    try:
        body = response.json()
    except ValueError:
        return fallback, {}
    if not isinstance(body, dict):
        return fallback, {}
    message = str(body.get("message") or body.get("status") or fallback)
    errors = body.get("errors")
    fields = {str(k): str(v) for k, v in errors.items()} if isinstance(errors, dict) else {}
    return message, fields


def _unavailable(response: httpx.Response) -> ProviderUnavailable:
    return ProviderUnavailable(
        f"Monerium unavailable ({response.status_code})",
        retry_after=retry_after_seconds(response.headers.get("Retry-After")),
    )


def classify(response: httpx.Response, fields: FieldMapper | None = None) -> Exception:
    """The provider-neutral error of an API answer (not the token endpoint's)."""
    status = response.status_code
    if status == 429 or status >= 500:
        return _unavailable(response)
    message, complaints = _error_details(response)
    if status == 401:
        return CredentialsRejected(f"Monerium refused a fresh access token (401): {message}")
    pointers = {}
    for name, complaint in complaints.items():
        pointer = fields(name) if fields else None
        if pointer:
            pointers[pointer] = complaint
    detail = "; ".join(f"{k}: {v}" for k, v in complaints.items())
    why = f"{message} ({detail})" if detail else message
    return ProviderRefused(f"Monerium refused the request ({status}): {why}", pointers)


class MoneriumClient:
    """One provider account's view of the Monerium API (an async context manager)."""

    def __init__(
        self,
        ctx: ProviderContext,
        *,
        timeout: httpx.Timeout = TIMEOUT,
        network: NetworkPolicy = PUBLIC_ONLY,
        tokens: TokenCache = TOKENS,
    ) -> None:
        self._base_url = ctx.base_url.rstrip("/")
        self._client_id, self._client_secret = client_credentials(ctx)
        self._key = cache_key(self._base_url, self._client_id, self._client_secret)
        self._tokens = tokens
        self._answer_seconds = WHOLE_ANSWER_READS * (timeout.read or TIMEOUT.read or 15.0)
        # The base URL may be an account's override: it reaches only what the network
        # policy permits, checked on the address each connection is made to.
        self._http = outbound.async_client(
            network, base_url=self._base_url, timeout=timeout, headers={"Accept": MEDIA_TYPE}
        )

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._http.aclose()

    # --- the token ----------------------------------------------------------------------

    async def take_token(self) -> str:
        """A token from the endpoint, bypassing the cache (the credentials check)."""
        value, _ = await self._fetch_token()
        return value

    async def _fetch_token(self) -> tuple[str, float]:
        request = self._http.build_request(
            "POST",
            TOKEN_PATH,
            data={
                "grant_type": "client_credentials",
                "client_id": self._client_id,
                "client_secret": self._client_secret,
            },
            headers={"Accept": "application/json"},
        )
        response = await self._exchange(request)
        if response.status_code in (400, 401, 403):
            message, _ = _error_details(response)
            raise CredentialsRejected(
                f"Monerium refused the client credentials ({response.status_code}): {message}"
            )
        if response.status_code == 429 or response.status_code >= 500:
            raise _unavailable(response)
        if not response.is_success:
            raise ProviderUnavailable(f"Monerium's token endpoint answered {response.status_code}")
        try:
            body = response.json()
            value = str(body["access_token"])
            lifetime = float(body.get("expires_in") or 0)
        except (ValueError, KeyError, TypeError):
            raise ProviderUnavailable("Monerium's token answer has no access token") from None
        if not value:
            raise ProviderUnavailable("Monerium's token answer has an empty access token")
        return value, lifetime

    # --- API calls ----------------------------------------------------------------------

    async def get(
        self, path: str, params: Mapping[str, str] | None = None, *, expect: Collection[int] = ()
    ) -> Answer:
        return await self._call("GET", path, params=params, expect=expect)

    async def post(
        self,
        path: str,
        body: Mapping[str, Any],
        *,
        expect: Collection[int] = (),
        fields: FieldMapper | None = None,
    ) -> Answer:
        return await self._call("POST", path, json=dict(body), expect=expect, fields=fields)

    async def patch(
        self,
        path: str,
        body: Mapping[str, Any],
        *,
        expect: Collection[int] = (),
        fields: FieldMapper | None = None,
    ) -> Answer:
        return await self._call("PATCH", path, json=dict(body), expect=expect, fields=fields)

    async def upload(self, path: str, filename: str, content_type: str, data: bytes) -> Answer:
        """A multipart upload (`file`), as `POST /files` takes a document."""
        return await self._call("POST", path, files={"file": (filename, data, content_type)})

    async def _call(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        json: Mapping[str, Any] | None = None,
        files: Mapping[str, tuple[str, bytes, str]] | None = None,
        expect: Collection[int] = (),
        fields: FieldMapper | None = None,
    ) -> Answer:
        for attempt in (1, 2):
            token = await self._tokens.token(self._key, self._fetch_token)
            request = self._http.build_request(
                method,
                path,
                params=params,
                json=json,
                files=files,
                headers={"Authorization": f"Bearer {token}"},
            )
            response = await self._exchange(request)
            if response.status_code == 401 and attempt == 1:
                # Expired or revoked: not a verdict on the credentials. A new token,
                # then the same call once more.
                log.info("monerium %s %s: token refused, renewing it", method, _shown(path))
                self._tokens.drop(self._key, token)
                continue
            break
        status = response.status_code
        if response.is_success or status in expect:
            return Answer(status, _json(response))
        raise classify(response, fields)

    async def _exchange(self, request: httpx.Request) -> httpx.Response:
        method, path = request.method, _shown(request.url.path)
        try:
            async with asyncio.timeout(self._answer_seconds):
                response = await outbound.send_bounded(
                    self._http, request, max_bytes=MAX_RESPONSE_BYTES
                )
        except outbound.ResponseTooLarge:
            log.warning("monerium %s %s: answer over %d bytes", method, path, MAX_RESPONSE_BYTES)
            raise ProviderUnavailable(
                f"Monerium answered with a body over {MAX_RESPONSE_BYTES} bytes"
            ) from None
        except (httpx.TimeoutException, TimeoutError) as exc:
            log.warning("monerium %s %s timed out", method, path)
            raise ProviderUnavailable(
                f"Monerium did not answer in time ({type(exc).__name__})"
            ) from None
        except httpx.TransportError as exc:
            log.warning("monerium %s %s failed: %s", method, path, type(exc).__name__)
            raise ProviderUnavailable(f"Monerium unreachable ({type(exc).__name__})") from None
        log.info("monerium %s %s -> %s", method, path, response.status_code)
        return response


def _shown(path: str) -> str:
    """A path as logged: its first segment only (later ones may be an IBAN, an address)."""
    head = path.strip("/").split("/", 1)
    return "/" + head[0] + ("/…" if len(head) > 1 else "")


def _json(response: httpx.Response) -> Any:
    if not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        if response.status_code in (202, 304):
            return None  # an acceptance whose body we do not read
        raise ProviderUnavailable("Monerium answered with a body that is not JSON") from None
