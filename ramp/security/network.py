"""Network policy: where the service may send a request (server-side request forgery).

A project names URLs the service then requests from inside our network (its webhook
endpoints, a trusted issuer's JWKS), and a provider account names its API's base URL.
Every such request is checked here twice:

- when the URL is registered (`check_url`): scheme, port, host syntax, names that are
  ours by definition (`localhost`, `*.internal`, a cloud's metadata name), IP literals in
  any spelling;
- when it is made (`resolve`): the name is resolved once, every address it gives is
  checked, and the client connects to those very addresses (ramp/security/outbound.py
  for httpx, ramp/webhooks/sending.py for aiohttp), so a name cannot pass the check and
  then connect elsewhere (DNS rebinding). Redirects are never followed.

Two policies (docs/decisions.md, "Issue 23: network policy"): `PUBLIC_ONLY` (production
projects, provider base URLs) reaches globally routable addresses only; `LOCAL_ALLOWED`
(sandbox projects, which run on the developer's machine) also reaches loopback and
private networks. Neither ever reaches link-local (cloud metadata), multicast,
broadcast, unspecified or reserved addresses. An operator may add networks to a policy
(`RAMP_PROVIDER_NETWORKS` for provider base URLs: a staging proxy, a test's simulator).

Standard library only: the webhook sender process imports this.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final
from urllib.parse import SplitResult, urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


class UrlRefused(ValueError):
    """A URL the policy does not let the service request; the message says why."""


class AddressRefused(UrlRefused):
    """A name that resolved to an address the policy refuses (checked at request time)."""


# Cloud metadata services: the most valuable target of a forged request. Their
# link-local addresses are refused as such; these are outside link-local.
_METADATA_ADDRESSES: Final = frozenset(
    ipaddress.ip_address(text)
    for text in (
        "fd00:ec2::254",  # AWS, over IPv6
        "100.100.100.200",  # Alibaba Cloud
    )
)
_METADATA_NAMES: Final = frozenset(
    ("metadata", "metadata.google.internal", "metadata.goog", "instance-data")
)
# Names that are ours (or some network's own) by definition, never a project's public
# host: special-use and de facto private top-level domains.
_INTERNAL_SUFFIXES: Final = (
    "localhost",
    "local",
    "localdomain",
    "internal",
    "intranet",
    "lan",
    "home",
    "corp",
    "private",
    "home.arpa",
    "in-addr.arpa",
    "ip6.arpa",
)
_NAT64: Final = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL: Final = ipaddress.ip_network("64:ff9b:1::/48")
_IPV4_COMPATIBLE: Final = ipaddress.ip_network("::/96")
_THIS_NETWORK: Final = ipaddress.ip_network("0.0.0.0/8")
_LABEL: Final = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)$")


@dataclass(frozen=True)
class NetworkPolicy:
    """Which addresses a request may connect to.

    `local_allowed`: loopback and private networks too (a sandbox's receivers and
    identity providers). `extra_networks`: networks an operator allows besides.
    """

    local_allowed: bool = False
    extra_networks: tuple[IPNetwork, ...] = ()

    def with_networks(self, networks: Iterable[IPNetwork]) -> NetworkPolicy:
        return NetworkPolicy(self.local_allowed, self.extra_networks + tuple(networks))

    def permits(self, address: IPAddress) -> bool:
        """Whether a connection to `address` is allowed."""
        if any(address in network for network in self.extra_networks):
            return True
        if isinstance(address, ipaddress.IPv6Address) and address in _NAT64_LOCAL:
            # Local-use NAT64 (RFC 8215): local at most, and the IPv4 address it carries
            # judged at the /96 place (its last 32 bits). Any of RFC 6052's other places
            # leaves the suffix there, zero ("this network"): refused, as is metadata.
            inner_96 = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
            return self.local_allowed and self.permits(inner_96)
        inner = _embedded_ipv4(address)
        if inner is not None:
            return self.permits(inner)
        if address.is_loopback:
            return self.local_allowed
        if _never(address):
            return False
        if address.is_global:
            return True
        return self.local_allowed and (address.is_private or _shared(address))

    def check_url(self, url: str, *, field: str = "url") -> SplitResult:
        """The URL split, if it is an absolute http(s) URL this policy lets us request;
        UrlRefused (naming `field`) otherwise. Names are checked again, resolved, when
        the request is made."""
        if any(ch.isspace() or not ch.isprintable() for ch in url):
            # urlsplit drops tabs and newlines before it parses (as browsers do) and
            # would judge another URL than the one stored and later requested.
            raise UrlRefused(f"{field} must not contain spaces or control characters")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UrlRefused(f"{field} must be an absolute http(s) URL")
        if parts.username is not None or parts.password is not None:
            raise UrlRefused(f"{field} must not carry credentials")
        try:
            port = parts.port
        except ValueError:
            raise UrlRefused(f"{field} must have a port from 1 to 65535") from None
        if port == 0:
            raise UrlRefused(f"{field} must have a port from 1 to 65535")
        host = _host(parts.hostname)
        address = literal_address(host)
        if address is not None:
            if not self.permits(address):
                raise UrlRefused(_refusal(field, LOCAL_ALLOWED.permits(address)))
            return parts
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise UrlRefused(f"{field} does not name a valid host") from None
        if not host or len(host) > 253 or not all(_LABEL.match(label) for label in host.split(".")):
            raise UrlRefused(f"{field} does not name a valid host")
        if host in _METADATA_NAMES:
            raise UrlRefused(_refusal(field, local=False))
        if not self.local_allowed and not _public_name(host):
            raise UrlRefused(_refusal(field, local=True))
        return parts

    async def resolve(self, host: str, port: int) -> list[str]:
        """The addresses to connect to for `host`: resolved once, each one checked;
        AddressRefused if any is refused (a name with one bad address is not trusted
        with the others)."""
        address = literal_address(_host(host))
        if address is not None:
            return [self._checked(host, address)]
        found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        return self._all_checked(host, [str(entry[4][0]) for entry in found])

    def resolve_blocking(self, host: str, port: int) -> list[str]:
        """`resolve` for threads (the JWKS fetch runs in one)."""
        address = literal_address(_host(host))
        if address is not None:
            return [self._checked(host, address)]
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        return self._all_checked(host, [str(entry[4][0]) for entry in found])

    def _all_checked(self, host: str, found: list[str]) -> list[str]:
        if not found:
            raise AddressRefused(f"{host} resolves to no address")
        addresses = list(dict.fromkeys(found))
        for text in addresses:
            self._checked(host, ipaddress.ip_address(text.split("%", 1)[0]))
        return addresses

    def _checked(self, host: str, address: IPAddress) -> str:
        if not self.permits(address):
            raise AddressRefused(f"{host} resolves to an address this service may not reach")
        return str(address)


PUBLIC_ONLY: Final = NetworkPolicy(local_allowed=False)
LOCAL_ALLOWED: Final = NetworkPolicy(local_allowed=True)


def for_project(environment: str) -> NetworkPolicy:
    """The policy of the URLs a project names: a sandbox project's may be local."""
    return LOCAL_ALLOWED if environment == "sandbox" else PUBLIC_ONLY


def parse_networks(text: str) -> tuple[IPNetwork, ...]:
    """Comma-separated networks (`127.0.0.1/32, ::1`); ValueError on a bad one."""
    return tuple(
        ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip()
    )


def literal_address(host: str) -> IPAddress | None:
    """The address a host literally is, in any spelling a resolver accepts (`127.1`,
    `2130706433`, `0177.0.0.1`, `[::ffff:127.0.0.1]`); None for a name."""
    host = _host(host)
    try:
        return ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        pass
    if not re.fullmatch(r"[0-9a-fx.]+", host):
        return None
    try:
        # Legacy IPv4 spellings, as inet_aton (and so getaddrinfo) reads them.
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


def _refusal(field: str, local: bool) -> str:
    if local:
        return f"{field} must name a public host (not loopback, private or internal)"
    return f"{field} names a host this service never reaches (metadata, link-local, multicast)"


def _host(host: str) -> str:
    """A host as compared here: lower case, without brackets or the root's dot."""
    host = host.strip("[]").lower()
    return host[:-1] if host.endswith(".") else host


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries (mapped, NAT64, 6to4, Teredo, compatible)."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _IPV4_COMPATIBLE and int(address) > 1:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _never(address: IPAddress) -> bool:
    """Addresses no policy reaches: cloud metadata (link-local), every-host and
    many-host addresses."""
    return (
        address.is_link_local
        or address.is_multicast
        or address.is_unspecified
        or address.is_reserved
        or address in _METADATA_ADDRESSES
        or (isinstance(address, ipaddress.IPv4Address) and address in _THIS_NETWORK)
        or address == ipaddress.IPv4Address("255.255.255.255")
    )


def _shared(address: IPAddress) -> bool:
    # 100.64.0.0/10, carrier-grade NAT: neither private nor global to ipaddress.
    return isinstance(address, ipaddress.IPv4Address) and address in ipaddress.ip_network(
        "100.64.0.0/10"
    )


def _public_name(host: str) -> bool:
    """Whether a name may be a host on the public internet: at least two labels, and
    not under a top-level domain that is private by definition."""
    if "." not in host:
        return False  # a single label resolves through the local search domains
    return not any(host == suffix or host.endswith("." + suffix) for suffix in _INTERNAL_SUFFIXES)
