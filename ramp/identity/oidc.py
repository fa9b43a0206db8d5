"""Verification of OIDC ID tokens from identity providers a project trusts.

Pure verification: no database and no web framework. The only I/O is fetching each
issuer's JWKS (:class:`jwt.PyJWKClient`'s caching, our blocking fetch through the
network policy of ramp/security/network.py), so :meth:`OidcVerifier.verify` is
synchronous and async callers must run it in a worker thread
(``asyncio.to_thread`` / ``anyio.to_thread.run_sync``).

Typical use::

    iss = unverified_issuer(token)              # pick the project's TrustedIssuer by it
    identity = verifier.verify(token, trusted)  # then verify everything
"""

from __future__ import annotations

import ipaddress
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from types import MappingProxyType
from typing import Any, Final
from urllib.parse import urlsplit

import jwt
from jwt.types import Options

from ramp.errors import OidcError
from ramp.security.network import PUBLIC_ONLY, NetworkPolicy
from ramp.security.outbound import FetchFailed, fetch_json_blocking

__all__ = [
    "ALLOWED_ALGORITHMS",
    "IdentityTokenError",
    "OidcVerifier",
    "TrustedIssuer",
    "VerifiedIdentity",
    "unverified_issuer",
]

# Asymmetric algorithms only. HS* would let anyone holding the (public) JWKS forge
# tokens via algorithm confusion, and "none" is unsigned. Note that PyJWT additionally
# requires the token's alg to equal the JWK's alg (taken from the JWK's "alg" member,
# or inferred as RS256 / ES256 / ES384 / EdDSA from the key type when absent).
ALLOWED_ALGORITHMS: Final = ("RS256", "RS384", "RS512", "ES256", "ES384", "PS256", "EdDSA")
_REQUIRED_CLAIMS: Final = ("exp", "iat", "iss", "sub", "aud")
# ID tokens are a few KB at most; refuse to base64/JSON-decode anything much larger.
MAX_TOKEN_LENGTH: Final = 16 * 1024
# A JWK set is a few KB (Google's and Microsoft's: under 10 KB).
MAX_JWKS_BYTES: Final = 256 * 1024


class IdentityTokenError(Exception):
    """An ID token was rejected.

    ``code`` is a stable machine code (an :class:`ramp.errors.OidcError`); ``message``
    is human text that never echoes the token.
    """

    def __init__(self, code: OidcError, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def _is_loopback(host: str | None) -> bool:
    if host is None:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class TrustedIssuer:
    """An identity provider trusted by a project.

    ``jwks_url`` must be https (plain http is accepted for loopback hosts only, for
    local development and tests): keys fetched in clear text could be swapped.
    ``network`` is where the keys may be fetched from: public addresses only unless
    the project's environment allows more (ramp/security/network.py).
    """

    issuer: str
    audiences: tuple[str, ...]
    jwks_url: str
    network: NetworkPolicy = PUBLIC_ONLY

    def __post_init__(self) -> None:
        # Accept any iterable from config but store an immutable tuple.
        object.__setattr__(self, "audiences", tuple(self.audiences))
        if not self.issuer:
            raise ValueError("issuer must not be empty")
        if not self.audiences or not all(self.audiences):
            raise ValueError("audiences must be a non-empty tuple of non-empty strings")
        url = urlsplit(self.jwks_url)
        if not (url.scheme == "https" or (url.scheme == "http" and _is_loopback(url.hostname))):
            raise ValueError("jwks_url must use https (http only for loopback hosts)")


@dataclass(frozen=True)
class VerifiedIdentity:
    """A verified ID token: ``(issuer, subject)`` is the stable external identity."""

    issuer: str
    subject: str
    claims: Mapping[str, Any]


def _peek_claims(token: str) -> dict[str, Any]:
    if not isinstance(token, str) or len(token) > MAX_TOKEN_LENGTH:
        raise IdentityTokenError(OidcError.OIDC_MALFORMED, "token is not a JWT")
    try:
        # Signature and claims are deliberately not checked: this is only for routing.
        return jwt.decode(token, options={"verify_signature": False})
    except jwt.InvalidTokenError:
        raise IdentityTokenError(OidcError.OIDC_MALFORMED, "token is not a JWT") from None


def unverified_issuer(token: str) -> str:
    """Read ``iss`` WITHOUT verifying anything, to choose which issuer to verify against.

    Never trust the result beyond that lookup.
    """
    iss = _peek_claims(token).get("iss")
    if not _storable(iss):
        raise IdentityTokenError(OidcError.OIDC_MALFORMED, "token has no valid issuer")
    assert isinstance(iss, str)
    return iss


# Issuers and subjects are stored (500 characters); control characters, NUL above all,
# have no place in them and PostgreSQL text cannot hold NUL.
MAX_CLAIM_LENGTH: Final = 500


def _storable(value: object) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_CLAIM_LENGTH and value.isprintable()


# Checked in order, so subclasses come before their bases
# (InvalidSignatureError is a DecodeError; all are InvalidTokenError).
_DECODE_ERRORS: Final[tuple[tuple[type[Exception], OidcError, str], ...]] = (
    (jwt.InvalidSignatureError, OidcError.OIDC_INVALID_SIGNATURE, "token signature is invalid"),
    (jwt.ExpiredSignatureError, OidcError.OIDC_EXPIRED, "token has expired"),
    (jwt.ImmatureSignatureError, OidcError.OIDC_NOT_YET_VALID, "token is not valid yet"),
    (jwt.InvalidAudienceError, OidcError.OIDC_AUDIENCE_MISMATCH, "token audience is not accepted"),
    (jwt.InvalidIssuerError, OidcError.OIDC_UNTRUSTED_ISSUER, "token issuer is not trusted"),
    (jwt.MissingRequiredClaimError, OidcError.OIDC_MISSING_CLAIM, "token lacks a required claim"),
    (
        jwt.InvalidAlgorithmError,
        OidcError.OIDC_UNSUPPORTED_ALGORITHM,
        "token algorithm not accepted",
    ),
    (jwt.InvalidKeyError, OidcError.OIDC_INVALID_KEY, "issuer signing key is not acceptable"),
    (jwt.DecodeError, OidcError.OIDC_MALFORMED, "token is not a valid JWT"),
    (jwt.InvalidTokenError, OidcError.OIDC_INVALID_CLAIMS, "token claims are invalid"),
)


class _PolicyJWKClient(jwt.PyJWKClient):
    """PyJWKClient's caches and cooldown, with the fetch made through the network
    policy: checked on the address connected to at each fetch (not only when the
    issuer was registered), no redirect, bounded in time and size."""

    def __init__(self, uri: str, network: NetworkPolicy, **options: Any) -> None:
        super().__init__(uri, **options)
        self._network = network

    def fetch_data(self) -> Any:
        try:
            jwk_set = fetch_json_blocking(
                self.uri, self._network, timeout_seconds=self.timeout, max_bytes=MAX_JWKS_BYTES
            )
        except FetchFailed as failure:
            raise jwt.PyJWKClientConnectionError(f"JWKS not fetched: {failure}") from None
        if not isinstance(jwk_set, dict):
            raise jwt.PyJWKClientError("The JWKS endpoint did not return a JSON object")
        # As PyJWKClient.fetch_data does after a successful fetch (the cooldown of
        # forced refetches starts from it).
        if self.jwk_set_cache is not None:
            self.jwk_set_cache.put(jwk_set)
        self._last_successful_fetch = time.monotonic()
        return jwk_set


class OidcVerifier:
    """Verifies ID tokens; holds one cached :class:`jwt.PyJWKClient` per JWKS URL (and
    network policy).

    Synchronous (PyJWKClient fetches with blocking ``urllib``): call :meth:`verify`
    from a worker thread in async code. Safe to share between threads: the client map
    is lock-protected and each PyJWKClient serialises its own fetches.

    Caching: the whole JWK set is cached for ``jwks_lifespan`` (so keys removed by the
    issuer stop being trusted within that time). PyJWKClient's per-``kid`` LRU cache
    (``cache_keys=True``) is deliberately NOT used: it has no expiry, so a revoked key
    would stay trusted for the life of the process, and it saves nothing because the
    set cache already holds parsed keys. A token with an unknown ``kid`` triggers one
    JWKS refetch (key rotation), at most once per ``refetch_cooldown`` so random kids
    cannot turn us into a request amplifier against the issuer.
    """

    def __init__(
        self,
        *,
        jwks_lifespan: timedelta = timedelta(minutes=5),
        fetch_timeout: timedelta = timedelta(seconds=3),
        refetch_cooldown: timedelta = timedelta(seconds=30),
    ) -> None:
        self._jwks_lifespan = jwks_lifespan.total_seconds()
        self._fetch_timeout = fetch_timeout.total_seconds()
        self._refetch_cooldown = refetch_cooldown.total_seconds()
        self._clients: dict[tuple[str, NetworkPolicy], jwt.PyJWKClient] = {}
        self._lock = threading.Lock()

    def _client(self, issuer: TrustedIssuer) -> jwt.PyJWKClient:
        with self._lock:
            key = (issuer.jwks_url, issuer.network)
            client = self._clients.get(key)
            if client is None:
                client = _PolicyJWKClient(
                    issuer.jwks_url,
                    issuer.network,
                    cache_keys=False,
                    cache_jwk_set=True,
                    lifespan=self._jwks_lifespan,
                    timeout=self._fetch_timeout,
                    cooldown_duration=self._refetch_cooldown,
                )
                self._clients[key] = client
            return client

    def _signing_key(self, token: str, issuer: TrustedIssuer) -> jwt.PyJWK:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.InvalidTokenError:
            raise IdentityTokenError(OidcError.OIDC_MALFORMED, "token is not a JWT") from None
        # Reject forbidden algorithms before touching the network, so alg=none/HS256
        # junk never costs a JWKS fetch.
        if header.get("alg") not in ALLOWED_ALGORITHMS:
            raise IdentityTokenError(
                OidcError.OIDC_UNSUPPORTED_ALGORITHM, "token algorithm not accepted"
            )
        kid = header.get("kid")
        if not isinstance(kid, str) or not kid:
            # PyJWKClient only matches keys by kid; every mainstream issuer sets it.
            raise IdentityTokenError(OidcError.OIDC_UNKNOWN_KEY, "token header has no key id")

        client = self._client(issuer)
        # PyJWKClient raises the same PyJWKClientError for "unknown kid" and for a
        # broken JWKS document, so load the set first: any failure there is the
        # issuer's (OIDC_KEYS_UNAVAILABLE), a failure after it is the token's kid.
        try:
            client.get_signing_keys()
        except (jwt.PyJWKClientError, jwt.PyJWKSetError, jwt.PyJWKError, ValueError):
            # ValueError: the endpoint answered with something that is not JSON.
            raise IdentityTokenError(
                OidcError.OIDC_KEYS_UNAVAILABLE, "issuer signing keys could not be fetched"
            ) from None
        try:
            # Served from the cached set; an unknown kid refetches once (see class doc).
            return client.get_signing_key(kid)
        except jwt.PyJWKClientConnectionError:
            raise IdentityTokenError(
                OidcError.OIDC_KEYS_UNAVAILABLE, "issuer signing keys could not be fetched"
            ) from None
        except (jwt.PyJWKClientError, jwt.PyJWKSetError, jwt.PyJWKError, ValueError):
            raise IdentityTokenError(
                OidcError.OIDC_UNKNOWN_KEY, "token is signed with an unknown key"
            ) from None

    def verify(
        self,
        token: str,
        issuer: TrustedIssuer,
        *,
        leeway: timedelta = timedelta(seconds=30),
    ) -> VerifiedIdentity:
        """Verify signature and claims of ``token`` against one trusted ``issuer``.

        Requires ``exp``, ``iat``, ``iss``, ``sub`` and ``aud``; ``iss`` must equal
        ``issuer.issuer`` exactly and ``aud`` must contain one of ``issuer.audiences``.
        ``leeway`` applies to ``exp``/``iat``/``nbf`` against the wall clock (PyJWT
        does not accept an injected "now").

        Blocking: may fetch the issuer's JWKS over HTTP (timeout a few seconds).

        Raises:
            IdentityTokenError: the token is rejected, or the issuer's keys could not
                be fetched (``OIDC_KEYS_UNAVAILABLE``, worth a retry).
        """
        if leeway < timedelta(0):
            raise ValueError("leeway must not be negative")
        if not isinstance(token, str) or len(token) > MAX_TOKEN_LENGTH:
            raise IdentityTokenError(OidcError.OIDC_MALFORMED, "token is not a JWT")

        signing_key = self._signing_key(token, issuer)
        options: Options = {
            "verify_signature": True,
            "verify_exp": True,
            "verify_iat": True,
            "verify_nbf": True,
            "verify_iss": True,
            "verify_aud": True,
            "verify_sub": True,
            "require": list(_REQUIRED_CLAIMS),
            # Reject (instead of warn about) keys below the recommended size.
            "enforce_minimum_key_length": True,
        }
        try:
            claims = jwt.decode(
                token,
                key=signing_key,
                algorithms=list(ALLOWED_ALGORITHMS),
                audience=list(issuer.audiences),
                issuer=issuer.issuer,
                leeway=leeway,
                options=options,
            )
        except jwt.PyJWTError as exc:
            for exc_type, code, text in _DECODE_ERRORS:
                if isinstance(exc, exc_type):
                    raise IdentityTokenError(code, text) from None
            raise IdentityTokenError(OidcError.OIDC_INVALID_CLAIMS, "token was rejected") from None

        # Belt and braces: PyJWT 2.10.0 compared a str issuer by substring
        # (CVE-2024-53861); the exact match is the whole point of issuer pinning.
        if claims.get("iss") != issuer.issuer:
            raise IdentityTokenError(OidcError.OIDC_UNTRUSTED_ISSUER, "token issuer is not trusted")
        subject = claims["sub"]
        if not _storable(subject):
            raise IdentityTokenError(OidcError.OIDC_INVALID_CLAIMS, "token subject is invalid")
        return VerifiedIdentity(
            issuer=issuer.issuer,
            subject=subject,
            claims=MappingProxyType(claims),
        )
