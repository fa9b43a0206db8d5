"""Network policy: which hosts the service may call on a project's behalf (SSRF).

A project names URLs the service then requests (webhook endpoints, a trusted issuer's
JWKS); in production those must not reach our own network.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit


class NotPublicAddress(ValueError):
    """A name that resolves to an address on our own network, where a public one is due."""


def public_host(url: str) -> bool:
    """Whether the URL's host is a name, or an address on the public internet. Names are
    checked again where they are used (resolving here would not stop DNS rebinding)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return False
    try:
        ipaddress.ip_address(host)
    except ValueError:
        try:
            # Legacy IPv4 spellings that resolvers accept: 2130706433, 127.1, 0177.0.0.1.
            socket.inet_aton(host)
        except OSError:
            return True  # a name
        return is_public_address(socket.inet_ntoa(socket.inet_aton(host)))
    return is_public_address(host)


def is_public_address(text: str) -> bool:
    address = ipaddress.ip_address(text.split("%", 1)[0])
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global
