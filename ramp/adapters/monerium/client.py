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

The exchange itself (bounds in time and size, transport failures, 5xx and 429) is every
HTTP connector's: ramp/adapters/http_common.py. Nothing logged carries a header, a body
or a query string, and a path only its first segment: the token, personal data and
IBANs travel in those.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Final, Self

import httpx

from ramp.adapters.contract import (
    CredentialsRejected,
    ProviderContext,
    ProviderRefused,
    ProviderUnavailable,
)
from ramp.adapters.http_common import (
    TIMEOUT,
    FieldMapper,
    ProviderHttp,
    error_object,
    pointers,
    unavailable,
)
from ramp.security.network import PUBLIC_ONLY, NetworkPolicy

from .credentials import client_credentials
from .tokens import TOKENS, TokenCache, cache_key

log = logging.getLogger(__name__)

PROVIDER: Final = "Monerium"
MEDIA_TYPE: Final = "application/vnd.monerium.api-v2+json"
TOKEN_PATH: Final = "/auth/token"  # noqa: S105 (a path, not a secret)
# A 202 or 304 may come with a body that is not JSON: an acceptance whose body we do
# not read.
UNREAD_BODIES: Final = (202, 304)


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any


def _error_details(response: httpx.Response) -> tuple[str, dict[str, str]]:
    """Monerium's error body: `{code, status, message, errors: {field: complaint}}`."""
    fallback = f"Monerium answered {response.status_code}"
    body = error_object(response)
    if body is None:
        return fallback, {}
    message = str(body.get("message") or body.get("status") or fallback)
    errors = body.get("errors")
    fields = {str(k): str(v) for k, v in errors.items()} if isinstance(errors, dict) else {}
    return message, fields


def classify(response: httpx.Response, fields: FieldMapper | None = None) -> Exception:
    """The provider-neutral error of an API answer (not the token endpoint's)."""
    later = unavailable(PROVIDER, response)
    if later is not None:
        return later
    status = response.status_code
    message, complaints = _error_details(response)
    if status == 401:
        return CredentialsRejected(f"Monerium refused a fresh access token (401): {message}")
    detail = "; ".join(f"{k}: {v}" for k, v in complaints.items())
    why = f"{message} ({detail})" if detail else message
    return ProviderRefused(
        f"Monerium refused the request ({status}): {why}", pointers(fields, complaints)
    )


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
        self._client_id, self._client_secret = client_credentials(ctx)
        self._http = ProviderHttp(
            PROVIDER, ctx, headers={"Accept": MEDIA_TYPE}, log=log, timeout=timeout,
            network=network,
        )  # fmt: skip
        self._key = cache_key(self._http.base_url, self._client_id, self._client_secret)
        self._tokens = tokens

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
        later = unavailable(PROVIDER, response)
        if later is not None:
            raise later
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
            return Answer(status, self._http.json_body(response, unread=UNREAD_BODIES))
        raise classify(response, fields)

    async def _exchange(self, request: httpx.Request) -> httpx.Response:
        return await self._http.exchange(request, _shown(request.url.path))


def _shown(path: str) -> str:
    """A path as logged: its first segment only (later ones may be an IBAN, an address)."""
    head = path.strip("/").split("/", 1)
    return "/" + head[0] + ("/…" if len(head) > 1 else "")
