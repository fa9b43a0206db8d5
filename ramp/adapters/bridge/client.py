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

The exchange itself (bounds in time and size, transport failures, 5xx and 429) is every
HTTP connector's: ramp/adapters/http_common.py. Nothing logged carries a header, a body
or a query string: the API key, personal data and account numbers travel in those.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self

import httpx

from ramp.adapters.contract import CredentialsRejected, ProviderContext, ProviderRefused
from ramp.adapters.http_common import (
    TIMEOUT,
    FieldMapper,
    ProviderHttp,
    error_object,
    pointers,
    unavailable,
)
from ramp.security.network import PUBLIC_ONLY, NetworkPolicy

from .credentials import api_key

log = logging.getLogger(__name__)

PROVIDER = "Bridge"


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
    body = error_object(response)
    if body is None:
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
    later = unavailable(PROVIDER, response)
    if later is not None:
        return later
    status = response.status_code
    error = _error_details(response)
    if _rejects_the_key(error):
        return CredentialsRejected(f"Bridge rejected the API key ({status}): {error.message}")
    # Only a field we can name in our own terms becomes a pointer; the message keeps
    # Bridge's wording (and its code, which says why) either way.
    why = error.message
    if error.code and error.code != error.message:
        why = f"{why} ({error.code})"
    return ProviderRefused(
        f"Bridge refused the request: {why}",
        pointers(fields, {error.key: error.message} if error.key else {}),
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
        self._http = ProviderHttp(
            PROVIDER,
            ctx,
            headers={"Api-Key": api_key(ctx), "Accept": "application/json"},
            log=log,
            timeout=timeout,
            network=network,
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
        request = self._http.build_request(method, path, params=params, json=json, headers=headers)
        response = await self._http.exchange(request, path)
        if response.is_success:
            return self._http.json_body(response)
        raise _classify(response, fields)
