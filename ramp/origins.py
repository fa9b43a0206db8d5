"""Origins allowed to embed the hosted onboarding page, and the page's security headers.

An origin is `scheme://host[:port]`, nothing else (no path, query, user or wildcard
host, no IPv6 literal: CSP source expressions cannot name one). Production projects
need https. `:*` (any port) is accepted on loopback hosts only (`localhost`,
`127.0.0.1`), for local development; CSP supports it as is.
The page posts its messages only to an origin of the list, and its
`Content-Security-Policy: frame-ancestors` names exactly these.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

MAX_ORIGINS = 20
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1"})
# What `ramp dev` allows for its demo project: any local port.
DEV_ORIGINS = ("http://localhost:*", "http://127.0.0.1:*")

_ORIGIN = re.compile(
    r"^(?P<scheme>https?)://(?P<host>\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(?P<port>\*|[0-9]{1,5}))?$"
)
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")


class InvalidOrigin(ValueError):
    pass


def normalize_origin(value: str, *, production: bool = False) -> str:
    """`value` as stored (lower case, default port dropped); InvalidOrigin if it is not
    an origin this project may use."""
    text = value.strip().lower()
    match = _ORIGIN.match(text)
    if match is None:
        raise InvalidOrigin(
            f"{value!r} is not an origin: write scheme://host[:port], for example "
            "https://app.example.com (no path, no trailing slash)"
        )
    scheme, host, port = match["scheme"], match["host"], match["port"]
    if host.startswith("["):
        # Browsers refuse an IPv6 literal in frame-ancestors: the frame would be blocked.
        raise InvalidOrigin(f"{value!r}: IPv6 addresses cannot be allowed; use a host name")
    if not all(_LABEL.match(label) for label in host.split(".")):
        raise InvalidOrigin(f"{value!r}: {host} is not a host name")
    if production and scheme != "https":
        raise InvalidOrigin(f"{value!r}: production projects must use https origins")
    if port == "*" and host not in LOOPBACK_HOSTS:
        raise InvalidOrigin(f"{value!r}: any port (:*) is only allowed on localhost")
    if port not in (None, "*") and not 1 <= int(port) <= 65535:
        raise InvalidOrigin(f"{value!r}: port must be 1 to 65535")
    if (scheme, port) in (("http", "80"), ("https", "443")):
        port = None
    return f"{scheme}://{host}" + (f":{port}" if port else "")


def normalize_origins(values: Iterable[str], *, production: bool = False) -> list[str]:
    """Each origin normalised, duplicates dropped, order kept."""
    origins = list(dict.fromkeys(normalize_origin(v, production=production) for v in values))
    if len(origins) > MAX_ORIGINS:
        raise InvalidOrigin(f"at most {MAX_ORIGINS} origins may embed the onboarding page")
    return origins


def origin_allowed(origin: str, allowed: Sequence[str]) -> bool:
    """Whether a browser origin (`scheme://host[:port]`) is one of `allowed`."""
    for entry in allowed:
        if entry == origin:
            return True
        if entry.endswith(":*"):
            prefix = entry[:-1]
            rest = origin[len(prefix) :] if origin.startswith(prefix) else ""
            if rest.isdigit() or origin == entry[:-2]:
                return True
    return False


def content_security_policy(origins: Sequence[str]) -> str:
    """The page's policy: everything from us, no inline script, embeddable by `origins`."""
    # Only the project's origins (none: nobody may frame the page).
    ancestors = " ".join(origins) or "'none'"
    return "; ".join(
        [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data: blob:",
            "font-src 'self'",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            f"frame-ancestors {ancestors}",
        ]
    )


SECURITY_HEADERS: dict[str, str] = {
    "X-Content-Type-Options": "nosniff",
    # The page's URL carries its token: never send it on as a referrer.
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "Permissions-Policy": "geolocation=(), microphone=(), payment=()",
}
