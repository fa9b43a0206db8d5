"""One signed POST of an event to an endpoint, and what came of it.

The dispatcher (ramp/webhooks/dispatcher.py) sends every attempt through a `Sender`:
`InlineSender` POSTs from the dispatcher's own process, `SenderProcess`
(ramp/webhooks/sender_process.py) from a child process. Either way the POST is made
here, with one aiohttp session per process: its pool keeps connections to busy
endpoints open, and a POST costs a fifth of httpx's CPU (docs/decisions.md, Issue 16).
The POST goes where the project said or fails: no proxies from the environment, no
redirects; the answer's body is not read, only its status counts.

Light on imports: the sender process loads this module and little else.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol
from urllib.parse import urlsplit

import aiohttp
import certifi

from ramp.security.network import NotPublicAddress, is_public_address
from ramp.webhooks.signing import signature_headers

# Built once: loading the CA bundle costs about 30 ms of CPU.
_TLS = ssl.create_default_context(cafile=certifi.where())


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
    # Production endpoints must resolve to public addresses at each attempt.
    public_only: bool


@dataclass(frozen=True)
class Sent:
    attempted_at: datetime
    status_code: int | None
    latency_ms: int
    error: str | None

    @property
    def acknowledged(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def http_client(max_connections: int) -> aiohttp.ClientSession:
    """One session per dispatcher (open it inside the running event loop)."""
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=max_connections, ssl=_TLS),
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

    def __init__(self, http: aiohttp.ClientSession) -> None:
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
    http: aiohttp.ClientSession,
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
        # The whole attempt (resolve, connect, send, answer) within the timeout (the
        # client's own is a little longer: this one speaks first).
        async with asyncio.timeout(timeout_seconds):
            if signer.public_only:
                await _refuse_private_addresses(url)
            async with http.post(
                url,
                data=event.body,
                headers=headers,
                allow_redirects=False,
                timeout=aiohttp.ClientTimeout(total=timeout_seconds + 1),
            ) as response:
                status_code = response.status
        if not 200 <= status_code < 300:
            error = f"HTTP {status_code}"
    except TimeoutError:
        error = f"no answer within {timeout_seconds:g} s"
    except (aiohttp.ClientConnectorError, ConnectionRefusedError) as failure:
        # Named as the log always named it: no connection could be made.
        error = f"ConnectError: {failure}"[:1000]
    except (aiohttp.ClientError, OSError, ValueError) as failure:
        error = f"{type(failure).__name__}: {failure}"[:1000]
    latency_ms = round((time.perf_counter() - started) * 1000)
    return Sent(attempted_at, status_code, latency_ms, error)


async def _refuse_private_addresses(url: str) -> None:
    """A production endpoint must resolve to public addresses only (what its name says
    today, not only when it was registered)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    if not found or not all(is_public_address(str(entry[4][0])) for entry in found):
        raise NotPublicAddress(f"{host} resolves to an address that is not public")
