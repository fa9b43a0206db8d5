"""What every HTTP connector shares, after Hyperswitch's `ConnectorCommon`: the
credentials' schema check and base URL, the HTTP exchange with its bounds, the sorting
of an HTTP answer into the contract's provider-neutral errors where the providers agree
(a timeout, a transport failure, a 5xx or a 429), and the connector's front
(`HttpConnector`: each flow one call of its module, with a client opened for it), and
the steps of reading a webhook that do not depend on its signature scheme. Only
what is the same logic for Bridge and Monerium lives here; how each authenticates (an
API key; OAuth client credentials and token renewal), reads its error bodies and signs
its webhooks stays in its own subpackage (docs/providers.md, "What the connectors
share").

Every message keeps the provider's name (`provider`, as the owner reads it: "Bridge"),
and nothing logged carries a header, a body or a query string: keys, tokens, personal
data and account numbers travel in those.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Concatenate, Final, Generic, ParamSpec, Protocol, Self, TypeVar

import httpx
import jsonschema

from ramp.adapters.contract import (
    CallMode,
    ComplianceHandoff,
    ProviderComplianceEvent,
    ProviderContext,
    ProviderCredentials,
    ProviderEvent,
    ProviderUnavailable,
    WebhookRejected,
)
from ramp.security import outbound
from ramp.security.network import PUBLIC_ONLY, NetworkPolicy

# Both providers answer in well under a second: a slow answer is an outage, retried later.
TIMEOUT: Final = httpx.Timeout(15.0, connect=5.0)
# The most of an answer's body read (decoded): the largest answers (lists of 100) are
# tens of KB. A base URL may be an account's override: an endless or gzip-bombed body
# must not fill the worker's memory.
MAX_RESPONSE_BYTES: Final = 4 * 1024 * 1024
# The whole exchange (connect, send, every read) ends within this many times the read
# timeout: a timeout per read alone lets a body that drips a byte at a time hold an
# activity, and its worker slot, for as long as the sender likes.
WHOLE_ANSWER_READS: Final = 2

# Maps the provider's name of a field (Bridge's "account.routing_number", a key of
# Monerium's `errors`) to our JSON pointer, or None where we cannot name it.
FieldMapper = Callable[[str], str | None]


# --- credentials -----------------------------------------------------------------------


class InvalidCredentials(ValueError):
    """The credentials do not match the schema; the message never quotes a value."""


@dataclass(frozen=True)
class CredentialsSpec:
    """A provider's credentials: their JSON Schema and its documented hosts, one per
    `environment`, which an optional `baseUrl` overrides (tests, staging)."""

    provider: str
    schema: Mapping[str, Any]
    documented_hosts: Mapping[str, str]
    _validator: jsonschema.Draft202012Validator = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_validator", jsonschema.Draft202012Validator(self.schema))

    def validate(self, raw: Mapping[str, Any]) -> None:
        errors = sorted(self._validator.iter_errors(dict(raw)), key=lambda e: list(e.path))
        if errors:
            where = "/".join(str(p) for p in errors[0].path) or "(root)"
            # The validator's message may echo the value (a key): name the field only.
            raise InvalidCredentials(
                f"invalid {self.provider} credentials at {where} ({errors[0].validator})"
            )

    def base_url(self, raw: Mapping[str, Any]) -> str:
        override = raw.get("baseUrl")
        if isinstance(override, str) and override:
            return override.rstrip("/")
        return self.documented_hosts[str(raw["environment"])]

    def to_credentials(self, raw: Mapping[str, Any]) -> ProviderCredentials:
        """Validated raw credentials as secrets (for building a `ProviderContext`)."""
        self.validate(raw)
        return ProviderCredentials.model_validate({"values": {k: str(v) for k, v in raw.items()}})


# --- HTTP ------------------------------------------------------------------------------


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


def unavailable(provider: str, response: httpx.Response) -> ProviderUnavailable | None:
    """The error of an answer that says "later" (a 429, a 5xx): `ProviderUnavailable`
    with the provider's `Retry-After`; None for any other answer."""
    status = response.status_code
    if status != 429 and status < 500:
        return None
    return ProviderUnavailable(
        f"{provider} unavailable ({status})",
        retry_after=retry_after_seconds(response.headers.get("Retry-After")),
    )


def error_object(response: httpx.Response) -> dict[str, Any] | None:
    """An error answer's body when it is a JSON object (each provider reads its own
    fields from it); None when it is anything else."""
    try:
        body = response.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def pointers(fields: FieldMapper | None, complaints: Mapping[str, str]) -> dict[str, str]:
    """The provider's complaints about its fields, under our JSON pointers: only a field
    we can name in our own terms becomes one."""
    named = {}
    for name, complaint in complaints.items():
        pointer = fields(name) if fields else None
        if pointer:
            named[pointer] = complaint
    return named


class ProviderHttp:
    """One provider account's HTTP client: its base URL reached only where the network
    policy permits (it may be an account's override; checked on the address each
    connection is made to), every exchange bounded in time and size, and a failure to
    answer sorted as `ProviderUnavailable`. Closed with `aclose` (the provider's client
    is the async context manager)."""

    def __init__(
        self,
        provider: str,
        ctx: ProviderContext,
        *,
        headers: Mapping[str, str],
        log: logging.Logger,
        timeout: httpx.Timeout = TIMEOUT,
        network: NetworkPolicy = PUBLIC_ONLY,
    ) -> None:
        self.provider = provider
        self.base_url = ctx.base_url.rstrip("/")
        self._log, self._prefix = log, provider.lower()
        self._answer_seconds = WHOLE_ANSWER_READS * (timeout.read or TIMEOUT.read or 15.0)
        self._http = outbound.async_client(
            network, base_url=self.base_url, timeout=timeout, headers=dict(headers)
        )

    def build_request(self, method: str, path: str, **options: Any) -> httpx.Request:
        return self._http.build_request(method, path, **options)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def exchange(self, request: httpx.Request, shown: str) -> httpx.Response:
        """The answer, its body read; `ProviderUnavailable` when none came in time, the
        transport failed or the body ran past MAX_RESPONSE_BYTES. `shown` is the path as
        logged (the provider decides what of it may be logged)."""
        method, name, log = request.method, self.provider, self._log
        try:
            async with asyncio.timeout(self._answer_seconds):
                response = await outbound.send_bounded(
                    self._http, request, max_bytes=MAX_RESPONSE_BYTES
                )
        except outbound.ResponseTooLarge:
            log.warning("%s %s %s: answer over %d bytes", self._prefix, method, shown,
                        MAX_RESPONSE_BYTES)  # fmt: skip
            raise ProviderUnavailable(
                f"{name} answered with a body over {MAX_RESPONSE_BYTES} bytes"
            ) from None
        except (httpx.TimeoutException, TimeoutError) as exc:
            log.warning("%s %s %s timed out", self._prefix, method, shown)
            raise ProviderUnavailable(
                f"{name} did not answer in time ({type(exc).__name__})"
            ) from None
        except httpx.TransportError as exc:
            log.warning("%s %s %s failed: %s", self._prefix, method, shown, type(exc).__name__)
            raise ProviderUnavailable(f"{name} unreachable ({type(exc).__name__})") from None
        log.info("%s %s %s -> %s", self._prefix, method, shown, response.status_code)
        return response

    def json_body(self, response: httpx.Response, *, unread: Collection[int] = ()) -> Any:
        """The body of an answer taken (None when empty); a body that is not JSON is
        `ProviderUnavailable`, except on the statuses in `unread` (None)."""
        if not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            if response.status_code in unread:
                return None
            raise ProviderUnavailable(
                f"{self.provider} answered with a body that is not JSON"
            ) from None


# --- the connector ---------------------------------------------------------------------


class ProviderClient(Protocol):
    """A provider's client: one account's view of its API, an async context manager."""

    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, *exc: object) -> None: ...


ClientT = TypeVar("ClientT", bound=ProviderClient)
FlowArgs = ParamSpec("FlowArgs")
Result = TypeVar("Result")


class HttpConnector(Generic[ClientT]):
    """The front every HTTP connector keeps: called across the network (regular
    activities on the providers' queue), its base URL from its `CredentialsSpec`, its
    timeout and network policy given once, and each flow one call of a flow module with
    a client opened for it (`_flow`). A subclass names its credentials and builds its
    client; its flows are its own."""

    call_mode = CallMode.REMOTE
    credentials_spec: CredentialsSpec

    def __init__(
        self, *, timeout: httpx.Timeout = TIMEOUT, network: NetworkPolicy = PUBLIC_ONLY
    ) -> None:
        self._timeout = timeout
        self._network = network

    def _client(self, ctx: ProviderContext) -> ClientT:
        raise NotImplementedError

    def base_url(self, credentials: Mapping[str, Any]) -> str:
        return self.credentials_spec.base_url(credentials)

    async def _flow(
        self,
        ctx: ProviderContext,
        flow: Callable[Concatenate[ClientT, FlowArgs], Awaitable[Result]],
        *args: FlowArgs.args,
        **kwargs: FlowArgs.kwargs,
    ) -> Result:
        """`flow` of its module, with a client of this account for its duration."""
        async with self._client(ctx) as client:
            return await flow(client, *args, **kwargs)


# --- webhooks --------------------------------------------------------------------------


def lowered(headers: Mapping[str, str]) -> dict[str, str]:
    """Headers by lower-case name: HTTP names are case-insensitive, signers' not."""
    return {k.lower(): v for k, v in headers.items()}


def event_time(raw: object) -> datetime | None:
    """An event's ISO 8601 time (a trailing Z taken), None when absent or unreadable."""
    try:
        return datetime.fromisoformat(str(raw).replace("Z", "+00:00")) if raw else None
    except ValueError:
        return None


def webhook_json(provider: str, body: bytes) -> Any:
    """A verified body, parsed: `WebhookRejected` when it is not JSON."""
    try:
        return json.loads(body)
    except ValueError:
        raise WebhookRejected(f"the {provider} webhook body is not JSON") from None


def compliance_events(
    event_id: str,
    customer_id: str,
    handoffs: Mapping[str, ComplianceHandoff],
    occurred_at: datetime | None,
) -> list[ProviderEvent]:
    """One event per requirement a verified notification decides. The requirement's
    suffix keeps their ids distinct for deduplication and stable across redeliveries."""
    return [
        ProviderComplianceEvent(
            provider_event_id=f"{event_id}:{requirement}",
            provider_customer_id=customer_id,
            requirement=requirement,
            outcome=handoff.outcome,
            reason=handoff.reason,
            occurred_at=occurred_at,
        )
        for requirement, handoff in handoffs.items()
        if handoff.outcome is not None
    ]
