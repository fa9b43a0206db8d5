"""httpx clients that reach only what a network policy permits (ramp/security/network.py).

The transports resolve each host once, check every address against the policy, and
connect to those addresses: TLS still names the URL's host (SNI, certificate check) and
so does the Host header, since httpcore takes them from the request, not the socket.
No proxy from the environment, no redirects (every hop would need the same check and
none of our peers redirects).
"""

from __future__ import annotations

import json
import ssl
import time
from collections.abc import Iterable
from typing import Any, Final

import anyio
import certifi
import httpcore
import httpx

from ramp.security.network import NetworkPolicy, UrlRefused

# Built once: loading the CA bundle costs about 30 ms of CPU.
_TLS: Final = ssl.create_default_context(cafile=certifi.where())


class _PolicyBackend(httpcore.AsyncNetworkBackend):
    def __init__(self, policy: NetworkPolicy) -> None:
        self._policy = policy
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's signature)
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            with anyio.fail_after(timeout):
                addresses = await self._policy.resolve(host, port)
        except TimeoutError:
            raise httpcore.ConnectTimeout(f"{host} did not resolve in time") from None
        except (ValueError, OSError) as error:  # UrlRefused, a name getaddrinfo refuses
            raise httpcore.ConnectError(str(error)) from None
        failure: httpcore.ConnectError | httpcore.ConnectTimeout | None = None
        for address in addresses:
            try:
                return await self._inner.connect_tcp(
                    address, port, timeout, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as error:
                failure = error
        assert failure is not None
        raise failure

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's signature)
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("no request goes to a unix socket")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class _BlockingPolicyBackend(httpcore.NetworkBackend):
    def __init__(self, policy: NetworkPolicy) -> None:
        self._policy = policy
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        try:
            addresses = self._policy.resolve_blocking(host, port)
        except (ValueError, OSError) as error:  # UrlRefused, a name getaddrinfo refuses
            raise httpcore.ConnectError(str(error)) from None
        failure: httpcore.ConnectError | httpcore.ConnectTimeout | None = None
        for address in addresses:
            try:
                return self._inner.connect_tcp(
                    address, port, timeout, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as error:
                failure = error
        assert failure is not None
        raise failure

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("no request goes to a unix socket")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class PolicyTransport(httpx.AsyncHTTPTransport):
    """httpx's transport, its connection pool connecting through the policy."""

    def __init__(self, policy: NetworkPolicy, limits: httpx.Limits | None = None) -> None:
        limits = limits or httpx.Limits()
        super().__init__(verify=_TLS, trust_env=False, limits=limits)
        # httpx builds its pool without a network backend of our choosing; the same
        # pool, with ours.
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=_TLS,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_PolicyBackend(policy),
        )


class BlockingPolicyTransport(httpx.HTTPTransport):
    """`PolicyTransport` for blocking clients (a JWKS fetch runs in a thread)."""

    def __init__(self, policy: NetworkPolicy) -> None:
        super().__init__(verify=_TLS, trust_env=False)
        self._pool = httpcore.ConnectionPool(
            ssl_context=_TLS, network_backend=_BlockingPolicyBackend(policy)
        )


def async_client(policy: NetworkPolicy, **options: Any) -> httpx.AsyncClient:
    """An AsyncClient whose every request goes through `policy`."""
    return httpx.AsyncClient(
        transport=PolicyTransport(policy), trust_env=False, follow_redirects=False, **options
    )


class ResponseTooLarge(Exception):
    """An answer's body went past the bound its caller set (the message says the bound)."""


async def send_bounded(
    client: httpx.AsyncClient, request: httpx.Request, *, max_bytes: int
) -> httpx.Response:
    """`request` sent through `client`, its body read up to `max_bytes` (as decoded):
    `ResponseTooLarge` past it. Every network provider's client reads its answers
    through this, since an account's owner may choose the base URL: no answer fills a
    worker's memory. The response returned holds the body as read."""
    response = await client.send(request, stream=True)
    try:
        body = bytearray()
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) > max_bytes:
                raise ResponseTooLarge(f"an answer over {max_bytes} bytes")
    finally:
        await response.aclose()
    # Decoded already: the headers that described the encoded body no longer apply.
    headers = [(k, v) for k, v in response.headers.multi_items()
               if k.lower() not in ("content-encoding", "content-length")]  # fmt: skip
    return httpx.Response(
        response.status_code, headers=headers, content=bytes(body), request=request
    )


class FetchFailed(Exception):
    """A bounded fetch did not give a document (the message says why, never the body)."""


def fetch_json_blocking(
    url: str, policy: NetworkPolicy, *, timeout_seconds: float, max_bytes: int
) -> Any:
    """GET a small JSON document: the policy checks the URL and every address connected
    to, no redirect is followed, the whole fetch ends within about `timeout_seconds`
    and stops at `max_bytes` of body."""
    try:
        policy.check_url(url)
    except UrlRefused as refused:
        raise FetchFailed(str(refused)) from None
    deadline = time.monotonic() + timeout_seconds
    body = bytearray()
    try:
        with (
            httpx.Client(
                transport=BlockingPolicyTransport(policy),
                timeout=timeout_seconds,
                trust_env=False,
                follow_redirects=False,
            ) as client,
            client.stream(
                # Identity encoding: the size bound is on what crosses the network.
                "GET",
                url,
                headers={"Accept": "application/json", "Accept-Encoding": "identity"},
            ) as response,
        ):
            if response.status_code != 200:
                raise FetchFailed(f"answered {response.status_code}")
            declared = response.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                raise FetchFailed(f"the document is over {max_bytes} bytes")
            for chunk in response.iter_raw():
                body += chunk
                if len(body) > max_bytes:
                    raise FetchFailed(f"the document is over {max_bytes} bytes")
                if time.monotonic() > deadline:
                    raise FetchFailed(f"no whole document within {timeout_seconds:g} s")
    except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError) as error:
        raise FetchFailed(f"{type(error).__name__}: {error}") from None
    try:
        return json.loads(body)
    except ValueError:
        raise FetchFailed("the document is not JSON") from None
