"""One signed POST of an event to an endpoint, and what came of it.

The dispatcher (ramp/webhooks/dispatcher.py) sends every attempt through a `Sender`:
`InlineSender` POSTs from the dispatcher's own process, `SenderProcess`
(ramp/webhooks/sender_process.py) from a child process. Either way the POST is made
here, with aiohttp sessions of the process: their pools keep connections to busy
endpoints open, and a POST costs a fifth of httpx's CPU (docs/decisions.md, Issue 16).
The POST goes where the project said or fails: no proxies from the environment, no
redirects; the answer's body is not read, only its status counts.

Where it may go is the network policy of the project's environment
(ramp/security/network.py): one session per policy, whose resolver resolves each name
once, checks every address and hands the connector those very addresses to connect to
(TLS still names the host: SNI, certificate). A name that passes the check cannot
connect elsewhere (DNS rebinding).

Light on imports: the sender process loads this module and little else.
"""

from __future__ import annotations

import asyncio
import functools
import socket
import ssl
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Protocol

import aiohttp
import certifi
from aiohttp.abc import AbstractResolver, ResolveResult

from ramp.security.network import LOCAL_ALLOWED, PUBLIC_ONLY, NetworkPolicy
from ramp.webhooks.signing import signature_headers


@functools.cache
def _tls() -> ssl.SSLContext:
    """Built once, at the first session: loading the CA bundle costs about 30 ms of
    CPU (90 on a slow machine), which the many processes that import this module but
    never send (the API, the CLI, the dispatcher's parent) need not pay."""
    return ssl.create_default_context(cafile=certifi.where())


@dataclass(frozen=True)
class Outgoing:
    """What one attempt sends: the event's stored body."""

    event_id: str
    event_type: str
    body: bytes


@dataclass(frozen=True)
class Signer:
    """The project's side of an attempt: its secrets, and where it may send."""

    client_id: str
    secrets: tuple[str, ...]
    # Production endpoints reach public addresses only (else loopback and private too),
    # checked on the addresses connected to at each attempt.
    public_only: bool

    @property
    def network(self) -> NetworkPolicy:
        return PUBLIC_ONLY if self.public_only else LOCAL_ALLOWED


@dataclass(frozen=True)
class Sent:
    attempted_at: datetime
    status_code: int | None
    latency_ms: int
    error: str | None

    @property
    def acknowledged(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


class PolicyResolver(AbstractResolver):
    """Resolves a name once and answers only addresses the policy permits: the
    connector connects to what this answers (and caches it as it is)."""

    def __init__(self, policy: NetworkPolicy) -> None:
        self._policy = policy

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        addresses = await self._policy.resolve(host, port)
        return [
            {
                "hostname": host,
                "host": address,
                "port": port,
                "family": socket.AF_INET6 if ":" in address else socket.AF_INET,
                "proto": 0,
                "flags": socket.AI_NUMERICHOST,
            }
            for address in addresses
        ]

    async def close(self) -> None:
        pass


class HttpClients:
    """The process's aiohttp sessions, one per network policy (open it inside the
    running event loop; use as an async context manager)."""

    def __init__(self, max_connections: int) -> None:
        self._sessions = {
            policy: _session(policy, max_connections) for policy in (PUBLIC_ONLY, LOCAL_ALLOWED)
        }

    def session(self, policy: NetworkPolicy) -> aiohttp.ClientSession:
        return self._sessions[policy]

    async def __aenter__(self) -> HttpClients:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        for session in self._sessions.values():
            await session.close()


def http_client(max_connections: int) -> HttpClients:
    """The sessions of one dispatcher or sender process."""
    return HttpClients(max_connections)


def _session(policy: NetworkPolicy, max_connections: int) -> aiohttp.ClientSession:
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(
            limit=max_connections, ssl=_tls(), resolver=PolicyResolver(policy)
        ),
        trust_env=False,
        # An endpoint's cookies are never sent back (and not looked for at each POST).
        cookie_jar=aiohttp.DummyCookieJar(),
        # Ours: the signature headers; nothing the session would add by itself.
        skip_auto_headers=("User-Agent",),
    )


class Sender(Protocol):
    """Makes attempts: `send`'s contract, wherever the POST is made."""

    async def send(
        self, url: str, event: Outgoing, signer: Signer, timeout_seconds: float, at: datetime
    ) -> Sent: ...


class InlineSender:
    """Attempts made from this process, on its event loop."""

    def __init__(self, http: HttpClients) -> None:
        self._http = http

    async def send(
        self, url: str, event: Outgoing, signer: Signer, timeout_seconds: float, at: datetime
    ) -> Sent:
        return await send(self._http, url, event, signer, timeout_seconds, at)


@asynccontextmanager
async def inline_sender(max_connections: int) -> AsyncIterator[Sender]:
    async with http_client(max_connections) as http:
        yield InlineSender(http)


async def send(
    http: HttpClients,
    url: str,
    event: Outgoing,
    signer: Signer,
    timeout_seconds: float,
    attempted_at: datetime,
) -> Sent:
    """POSTs the event, signed; never raises for the endpoint's failures (they are
    outcomes)."""
    headers = signature_headers(
        message_id=event.event_id,
        event_type=event.event_type,
        client_id=signer.client_id,
        secrets=list(signer.secrets),
        body=event.body,
        at=attempted_at,
    )
    started = time.perf_counter()
    status_code: int | None = None
    error: str | None = None
    try:
        # The URL as registered may predate today's policy; an IP literal never reaches
        # the resolver, so this is its check.
        signer.network.check_url(url)
        # The whole attempt (resolve, connect, send, answer) within the timeout (the
        # client's own is a little longer: this one speaks first).
        async with (
            asyncio.timeout(timeout_seconds),
            http.session(signer.network).post(
                url,
                data=event.body,
                headers=headers,
                allow_redirects=False,
                timeout=aiohttp.ClientTimeout(total=timeout_seconds + 1),
            ) as response,
        ):
            status_code = response.status
        if not 200 <= status_code < 300:
            error = f"HTTP {status_code}"
    except TimeoutError:
        error = f"no answer within {timeout_seconds:g} s"
    except (aiohttp.ClientConnectorError, ConnectionRefusedError) as failure:
        # Named as the log always named it: no connection could be made.
        error = f"ConnectError: {failure}"[:1000]
    except (aiohttp.ClientError, OSError, ValueError) as failure:
        # ValueError: UrlRefused, AddressRefused (the policy refused where it leads).
        error = f"{type(failure).__name__}: {failure}"[:1000]
    latency_ms = round((time.perf_counter() - started) * 1000)
    return Sent(attempted_at, status_code, latency_ms, error)
