"""ramp.identity: strict SIWE verification and OIDC ID token verification.

Wallet messages are signed with real throwaway keys; ID tokens are signed with real
RSA/EC keys whose JWKS is served over HTTP on loopback from the test itself.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from eth_account import Account
from eth_account.messages import encode_defunct

from ramp.identity.oidc import (
    IdentityTokenError,
    OidcVerifier,
    TrustedIssuer,
    VerifiedIdentity,
    unverified_issuer,
)
from ramp.identity.wallet import (
    WalletSignIn,
    WalletSignInError,
    build_sign_in_message,
    verify_sign_in,
)
from ramp.security.network import LOCAL_ALLOWED
from tests.helpers.identity_provider import JwksServer, public_jwk, serve_jwks

# --------------------------------------------------------------------------- wallet

DOMAIN = "ramp.example"
URI = "https://ramp.example/login"
CHAIN_ID = 100
NONCE = "k3Jd9sQ2mZp7Xv4L"
NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
MAX_AGE = timedelta(minutes=5)


@pytest.fixture(scope="module")
def account() -> Any:
    return Account.create()


def sign(text: str, account: Any) -> str:
    signed = Account.sign_message(encode_defunct(text=text), account.key)
    return "0x" + bytes(signed.signature).hex()


def message_for(account: Any, **overrides: Any) -> str:
    fields: dict[str, Any] = {
        "domain": DOMAIN,
        "uri": URI,
        "address": account.address,
        "chain_id": CHAIN_ID,
        "nonce": NONCE,
        "issued_at": NOW - timedelta(seconds=30),
        "statement": "Sign in to Ramp",
    }
    fields.update(overrides)
    return build_sign_in_message(**fields)


def verify(message: str, signature: str, **overrides: Any) -> WalletSignIn:
    kwargs: dict[str, Any] = {
        "domain": DOMAIN,
        "uri": URI,
        "chain_id": CHAIN_ID,
        "now": NOW,
        "max_age": MAX_AGE,
    }
    kwargs.update(overrides)
    return verify_sign_in(message, signature, **kwargs)


def rejected(message: str, signature: str, **overrides: Any) -> str:
    with pytest.raises(WalletSignInError) as caught:
        verify(message, signature, **overrides)
    # The human text never echoes the submitted material.
    assert caught.value.message not in ("", message, signature)
    assert signature not in caught.value.message
    return caught.value.code


def test_build_sign_in_message_is_standard_eip4361(account: Any) -> None:
    lowercase = account.address.lower()
    text = build_sign_in_message(
        domain=DOMAIN,
        uri=URI,
        address=lowercase,
        chain_id=CHAIN_ID,
        nonce=NONCE,
        # Rendered in UTC with millisecond precision, whatever the input's zone.
        issued_at=datetime(2025, 6, 1, 14, 0, 0, 123456, tzinfo=timezone(timedelta(hours=2))),
        expiration_time=datetime(2025, 6, 1, 16, 10, tzinfo=UTC),
        statement="Sign in to Ramp",
    )
    assert text == (
        f"{DOMAIN} wants you to sign in with your Ethereum account:\n"
        f"{account.address}\n"  # checksummed even though given in lower case
        "\n"
        "Sign in to Ramp\n"
        "\n"
        f"URI: {URI}\n"
        "Version: 1\n"
        "Chain ID: 100\n"
        f"Nonce: {NONCE}\n"
        "Issued At: 2025-06-01T12:00:00.123Z\n"
        "Expiration Time: 2025-06-01T16:10:00.000Z"
    )


@pytest.mark.parametrize(
    "bad",
    [
        {"issued_at": datetime(2025, 6, 1)},  # naive
        {"nonce": "short"},
        {"statement": "two\nlines"},
        {"address": "0x1234"},
    ],
)
def test_build_sign_in_message_refuses_invalid_input(account: Any, bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - pydantic and eth_utils messages vary
        message_for(account, **bad)


def test_valid_sign_in(account: Any) -> None:
    expires = NOW + timedelta(minutes=10)
    text = message_for(account, expiration_time=expires)
    result = verify(text, sign(text, account))
    assert result == WalletSignIn(
        address=account.address,
        chain_id=CHAIN_ID,
        nonce=NONCE,
        issued_at=NOW - timedelta(seconds=30),
        expiration_time=expires,
    )
    assert result.issued_at.tzinfo is not None


def test_signature_without_0x_prefix_and_no_statement_are_accepted(account: Any) -> None:
    text = message_for(account, statement=None)
    assert verify(text, sign(text, account).removeprefix("0x")).address == account.address


def test_wrong_signer_is_rejected(account: Any) -> None:
    text = message_for(account)
    assert rejected(text, sign(text, Account.create())) == "SIWE_BAD_SIGNATURE"


def test_tampered_message_is_rejected(account: Any) -> None:
    text = message_for(account)
    signature = sign(text, account)
    tampered = text.replace(f"Nonce: {NONCE}", "Nonce: attackerNonce123")
    assert tampered != text
    assert rejected(tampered, signature) == "SIWE_BAD_SIGNATURE"


@pytest.mark.parametrize("signature", ["0x", "0xdeadbeef", "not-hex", "0x" + "00" * 65])
def test_garbage_signature_is_rejected(account: Any, signature: str) -> None:
    assert rejected(message_for(account), signature) == "SIWE_BAD_SIGNATURE"


def test_wrong_domain_is_rejected(account: Any) -> None:
    text = message_for(account, domain="evil.example")
    assert rejected(text, sign(text, account)) == "SIWE_DOMAIN_MISMATCH"
    # Exact match: a subdomain or a port is a different origin.
    for domain in ("login.ramp.example", "ramp.example:8443"):
        text = message_for(account, domain=domain)
        assert rejected(text, sign(text, account)) == "SIWE_DOMAIN_MISMATCH"


def test_wrong_uri_is_rejected(account: Any) -> None:
    for uri in (
        "https://evil.example/login",
        "https://ramp.example/login/",
        "http://ramp.example/login",
    ):
        text = message_for(account, uri=uri)
        assert rejected(text, sign(text, account)) == "SIWE_URI_MISMATCH"


def test_scheme_in_message_must_match_the_uri(account: Any) -> None:
    text = message_for(account)
    https = "https://" + text
    assert verify(https, sign(https, account)).address == account.address
    http = "http://" + text
    assert rejected(http, sign(http, account)) == "SIWE_SCHEME_MISMATCH"


def test_mainnet_chain_id_is_rejected(account: Any) -> None:
    text = message_for(account, chain_id=1)
    assert rejected(text, sign(text, account)) == "SIWE_CHAIN_MISMATCH"


def test_expired_message_is_rejected(account: Any) -> None:
    text = message_for(account, expiration_time=NOW - timedelta(seconds=1))
    assert rejected(text, sign(text, account)) == "SIWE_EXPIRED"
    # Expiration Time is exclusive: a message expiring right now is no longer valid.
    text = message_for(account, expiration_time=NOW)
    assert rejected(text, sign(text, account)) == "SIWE_EXPIRED"


def test_not_before_in_the_future_is_rejected(account: Any) -> None:
    # build_sign_in_message has no Not Before; append the field where EIP-4361 puts it.
    text = message_for(account) + "\nNot Before: 2025-06-01T12:05:00.000Z"
    assert rejected(text, sign(text, account)) == "SIWE_NOT_YET_VALID"
    earlier = message_for(account) + "\nNot Before: 2025-06-01T11:55:00.000Z"
    assert verify(earlier, sign(earlier, account)).address == account.address


def test_issued_at_too_old_is_rejected(account: Any) -> None:
    text = message_for(account, issued_at=NOW - MAX_AGE - timedelta(seconds=1))
    assert rejected(text, sign(text, account)) == "SIWE_ISSUED_AT_TOO_OLD"
    text = message_for(account, issued_at=NOW - MAX_AGE)
    assert verify(text, sign(text, account)).nonce == NONCE


def test_issued_at_in_the_future_is_rejected(account: Any) -> None:
    text = message_for(account, issued_at=NOW + timedelta(minutes=2))
    assert rejected(text, sign(text, account)) == "SIWE_ISSUED_AT_IN_FUTURE"
    # Within the tolerated clock skew of the wallet's clock.
    text = message_for(account, issued_at=NOW + timedelta(seconds=45))
    assert verify(text, sign(text, account)).address == account.address
    assert rejected(text, sign(text, account), clock_skew=timedelta(0)) == (
        "SIWE_ISSUED_AT_IN_FUTURE"
    )


@pytest.mark.parametrize(
    "garbage",
    [
        "",
        "hello",
        "ramp.example wants you to sign in with your Ethereum account:\n",
        "a" * 5000,  # bounded before the (slow) ABNF parser ever sees it
        "ramp.example wants you to sign in with your Ethereum account:\n" + "x" * 300,
    ],
)
def test_garbage_message_is_malformed(garbage: str) -> None:
    started = time.monotonic()
    assert rejected(garbage, "0x" + "11" * 65) == "SIWE_MALFORMED"
    assert time.monotonic() - started < 2


def test_malformed_fields_are_rejected(account: Any) -> None:
    text = message_for(account)
    for broken in (
        text.replace("Version: 1", "Version: 2"),
        text.replace("Chain ID: 100", "Chain ID: one hundred"),
        text.replace(f"Nonce: {NONCE}", "Nonce: abc"),
        text.replace("Issued At: 2025-06-01T11:59:30.000Z", "Issued At: yesterday"),
        text + "\n",  # not canonical: the signed bytes would not be what we check
        text.replace("\n", "\r\n"),
    ):
        assert rejected(broken, sign(broken, account)) == "SIWE_MALFORMED"


def test_unchecksummed_address_is_rejected(account: Any) -> None:
    text = message_for(account).replace(account.address, account.address.lower())
    assert rejected(text, sign(text, account)) == "SIWE_MALFORMED"


def test_naive_now_is_a_programming_error(account: Any) -> None:
    text = message_for(account)
    with pytest.raises(ValueError, match="timezone-aware"):
        verify(text, sign(text, account), now=NOW.replace(tzinfo=None))


# ----------------------------------------------------------------------------- oidc

ISSUER = "https://idp.example/tenant-1"
AUDIENCE = "ramp-client-id"


@dataclass(frozen=True)
class Keys:
    rsa_key: rsa.RSAPrivateKey
    ec_key: ec.EllipticCurvePrivateKey
    other_rsa_key: rsa.RSAPrivateKey


@pytest.fixture(scope="module")
def keys() -> Keys:
    return Keys(
        rsa_key=rsa.generate_private_key(public_exponent=65537, key_size=2048),
        ec_key=ec.generate_private_key(ec.SECP256R1()),
        other_rsa_key=rsa.generate_private_key(public_exponent=65537, key_size=2048),
    )


@pytest.fixture
def jwks(keys: Keys) -> Iterator[JwksServer]:
    server, stop = serve_jwks()
    server.jwks = {
        "keys": [
            public_jwk(keys.rsa_key, "rsa-1", "RS256"),
            public_jwk(keys.ec_key, "ec-1", "ES256"),
        ]
    }
    try:
        yield server
    finally:
        stop()


@pytest.fixture
def trusted(jwks: JwksServer) -> TrustedIssuer:
    # A local identity provider, as a sandbox project may trust.
    return TrustedIssuer(
        issuer=ISSUER,
        audiences=("other-client", AUDIENCE),
        jwks_url=jwks.url,
        network=LOCAL_ALLOWED,
    )


@pytest.fixture
def verifier() -> OidcVerifier:
    # No refetch cooldown so that unknown-kid refetches are observable in a test.
    return OidcVerifier(refetch_cooldown=timedelta(0))


def claims(**overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    values: dict[str, Any] = {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": "user-123",
        "iat": now,
        "exp": now + 300,
        "email": "user@example.com",
    }
    values.update(overrides)
    return {name: value for name, value in values.items() if value is not None}


def id_token(key: Any, *, kid: str = "rsa-1", alg: str = "RS256", **overrides: Any) -> str:
    return jwt.encode(claims(**overrides), key, algorithm=alg, headers={"kid": kid})


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unsigned_parts(header: dict[str, Any], payload: dict[str, Any]) -> str:
    return f"{b64(json.dumps(header).encode())}.{b64(json.dumps(payload).encode())}"


def oidc_code(verifier: OidcVerifier, token: str, issuer: TrustedIssuer) -> str:
    with pytest.raises(IdentityTokenError) as caught:
        verifier.verify(token, issuer)
    assert not token or token not in caught.value.message
    return caught.value.code


def test_valid_rs256_token(
    keys: Keys, jwks: JwksServer, trusted: TrustedIssuer, verifier: OidcVerifier
) -> None:
    identity = verifier.verify(id_token(keys.rsa_key), trusted)
    assert isinstance(identity, VerifiedIdentity)
    assert (identity.issuer, identity.subject) == (ISSUER, "user-123")
    assert identity.claims["email"] == "user@example.com"
    with pytest.raises(TypeError):
        identity.claims["sub"] = "someone-else"  # type: ignore[index]
    # The key set is cached: a second token costs no fetch.
    verifier.verify(id_token(keys.rsa_key, sub="user-456"), trusted)
    assert jwks.hits == 1


def test_valid_es256_token_with_audience_list(
    keys: Keys, trusted: TrustedIssuer, verifier: OidcVerifier
) -> None:
    token = id_token(keys.ec_key, kid="ec-1", alg="ES256", aud=["someone", AUDIENCE])
    assert verifier.verify(token, trusted).subject == "user-123"


def test_wrong_audience(keys: Keys, trusted: TrustedIssuer, verifier: OidcVerifier) -> None:
    token = id_token(keys.rsa_key, aud="another-app")
    assert oidc_code(verifier, token, trusted) == "OIDC_AUDIENCE_MISMATCH"


def test_wrong_issuer(keys: Keys, trusted: TrustedIssuer, verifier: OidcVerifier) -> None:
    assert oidc_code(verifier, id_token(keys.rsa_key, iss="https://evil.example"), trusted) == (
        "OIDC_UNTRUSTED_ISSUER"
    )
    # A prefix of the trusted issuer (CVE-2024-53861 shape) is not the trusted issuer.
    assert oidc_code(
        verifier, id_token(keys.rsa_key, iss="https://idp.example/tenant"), trusted
    ) == ("OIDC_UNTRUSTED_ISSUER")


def test_expired_token(keys: Keys, trusted: TrustedIssuer, verifier: OidcVerifier) -> None:
    now = int(time.time())
    token = id_token(keys.rsa_key, iat=now - 3600, exp=now - 120)
    assert oidc_code(verifier, token, trusted) == "OIDC_EXPIRED"
    # Within the 30 s leeway it is still accepted.
    assert verifier.verify(id_token(keys.rsa_key, iat=now - 600, exp=now - 10), trusted)


def test_token_issued_in_the_future(
    keys: Keys, trusted: TrustedIssuer, verifier: OidcVerifier
) -> None:
    now = int(time.time())
    token = id_token(keys.rsa_key, iat=now + 600, exp=now + 900)
    assert oidc_code(verifier, token, trusted) == "OIDC_NOT_YET_VALID"


@pytest.mark.parametrize("missing", ["exp", "iat", "sub", "aud"])
def test_required_claims(
    keys: Keys, trusted: TrustedIssuer, verifier: OidcVerifier, missing: str
) -> None:
    removed: dict[str, Any] = {missing: None}
    token = id_token(keys.rsa_key, **removed)
    assert oidc_code(verifier, token, trusted) == "OIDC_MISSING_CLAIM"


def test_tampered_signature(keys: Keys, trusted: TrustedIssuer, verifier: OidcVerifier) -> None:
    header, _, signature = id_token(keys.rsa_key).split(".")
    forged_payload = b64(json.dumps(claims(sub="admin")).encode())
    assert oidc_code(verifier, f"{header}.{forged_payload}.{signature}", trusted) == (
        "OIDC_INVALID_SIGNATURE"
    )
    # Right kid, wrong private key.
    assert oidc_code(verifier, id_token(keys.other_rsa_key), trusted) == "OIDC_INVALID_SIGNATURE"


def test_alg_none_is_refused_without_fetching_keys(
    jwks: JwksServer, trusted: TrustedIssuer, verifier: OidcVerifier
) -> None:
    token = unsigned_parts({"alg": "none", "typ": "JWT", "kid": "rsa-1"}, claims()) + "."
    assert oidc_code(verifier, token, trusted) == "OIDC_UNSUPPORTED_ALGORITHM"
    assert jwks.hits == 0


def test_hs256_signed_with_the_public_key_is_refused(
    keys: Keys, jwks: JwksServer, trusted: TrustedIssuer, verifier: OidcVerifier
) -> None:
    # Classic algorithm confusion: HMAC keyed with the issuer's *public* key, which a
    # verifier that trusts the header's alg would accept. Built by hand because PyJWT
    # itself refuses to use a PEM public key as an HMAC secret.
    public_pem = keys.rsa_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    signing_input = unsigned_parts({"alg": "HS256", "typ": "JWT", "kid": "rsa-1"}, claims())
    mac = hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest()
    token = f"{signing_input}.{b64(mac)}"
    assert oidc_code(verifier, token, trusted) == "OIDC_UNSUPPORTED_ALGORITHM"
    assert jwks.hits == 0


def test_algorithm_must_match_the_published_key(
    keys: Keys, trusted: TrustedIssuer, verifier: OidcVerifier
) -> None:
    # Allowed algorithm, but the JWK for rsa-1 is published for RS256 only.
    token = id_token(keys.rsa_key, alg="PS256")
    assert oidc_code(verifier, token, trusted) == "OIDC_UNSUPPORTED_ALGORITHM"


def test_unknown_kid_refetches_once(
    keys: Keys, jwks: JwksServer, trusted: TrustedIssuer, verifier: OidcVerifier
) -> None:
    assert oidc_code(verifier, id_token(keys.rsa_key, kid="never-published"), trusted) == (
        "OIDC_UNKNOWN_KEY"
    )
    assert jwks.hits == 2  # initial fetch + exactly one refetch


def test_rotated_key_is_picked_up(
    keys: Keys, jwks: JwksServer, trusted: TrustedIssuer, verifier: OidcVerifier
) -> None:
    verifier.verify(id_token(keys.rsa_key), trusted)
    assert jwks.hits == 1
    jwks.jwks = {"keys": [*jwks.jwks["keys"], public_jwk(keys.other_rsa_key, "rsa-2", "RS256")]}
    assert verifier.verify(id_token(keys.other_rsa_key, kid="rsa-2"), trusted).subject == "user-123"
    assert jwks.hits == 2


def test_unknown_kids_cannot_force_a_fetch_per_token(
    keys: Keys, jwks: JwksServer, trusted: TrustedIssuer
) -> None:
    verifier = OidcVerifier()  # default refetch cooldown
    verifier.verify(id_token(keys.rsa_key), trusted)
    for attempt in range(5):
        token = id_token(keys.rsa_key, kid=f"random-{attempt}")
        assert oidc_code(verifier, token, trusted) == "OIDC_UNKNOWN_KEY"
    assert jwks.hits == 1


def test_token_without_kid(keys: Keys, trusted: TrustedIssuer, verifier: OidcVerifier) -> None:
    token = jwt.encode(claims(), keys.rsa_key, algorithm="RS256")
    assert oidc_code(verifier, token, trusted) == "OIDC_UNKNOWN_KEY"


def test_jwks_server_down(keys: Keys, verifier: OidcVerifier) -> None:
    server, stop = serve_jwks()
    url = server.url
    stop()  # nothing listens on that port any more
    issuer = TrustedIssuer(
        issuer=ISSUER, audiences=(AUDIENCE,), jwks_url=url, network=LOCAL_ALLOWED
    )
    assert oidc_code(verifier, id_token(keys.rsa_key), issuer) == "OIDC_KEYS_UNAVAILABLE"


@pytest.mark.parametrize(
    ("status", "raw"),
    [
        (500, b'{"error": "boom"}'),
        (200, b"<html>not json</html>"),
        (200, b'["not", "an", "object"]'),
        (200, b'{"keys": []}'),
    ],
)
def test_broken_jwks_is_keys_unavailable(
    keys: Keys,
    jwks: JwksServer,
    trusted: TrustedIssuer,
    verifier: OidcVerifier,
    status: int,
    raw: bytes,
) -> None:
    jwks.status, jwks.raw = status, raw
    assert oidc_code(verifier, id_token(keys.rsa_key), trusted) == "OIDC_KEYS_UNAVAILABLE"


def test_weak_rsa_key_is_refused(jwks: JwksServer, trusted: TrustedIssuer) -> None:
    weak = rsa.generate_private_key(public_exponent=65537, key_size=1024)  # noqa: S505 - the point
    jwks.jwks = {"keys": [public_jwk(weak, "weak-1", "RS256")]}
    with pytest.warns(jwt.InsecureKeyLengthWarning):
        token = id_token(weak, kid="weak-1")
    assert oidc_code(OidcVerifier(), token, trusted) == "OIDC_INVALID_KEY"


def test_garbage_tokens_are_malformed(trusted: TrustedIssuer, verifier: OidcVerifier) -> None:
    for garbage in ("", "not-a-jwt", "a.b.c", "x" * 20_000):
        assert oidc_code(verifier, garbage, trusted) == "OIDC_MALFORMED"


def test_unverified_issuer(keys: Keys) -> None:
    assert unverified_issuer(id_token(keys.rsa_key)) == ISSUER
    # PyJWT refuses to encode a non-string iss, so that token is assembled by hand.
    numeric_iss = unsigned_parts({"alg": "RS256", "kid": "rsa-1"}, claims(iss=42)) + ".c2ln"
    for bad in ("", "garbage", id_token(keys.rsa_key, iss=None), numeric_iss):
        with pytest.raises(IdentityTokenError) as caught:
            unverified_issuer(bad)
        assert caught.value.code == "OIDC_MALFORMED"


def test_trusted_issuer_validation(jwks: JwksServer) -> None:
    with pytest.raises(ValueError, match="https"):
        TrustedIssuer(issuer=ISSUER, audiences=(AUDIENCE,), jwks_url="http://idp.example/jwks")
    with pytest.raises(ValueError, match="audiences"):
        TrustedIssuer(issuer=ISSUER, audiences=(), jwks_url=jwks.url)
    issuer = TrustedIssuer(
        issuer=ISSUER,
        audiences=[AUDIENCE],  # type: ignore[arg-type]
        jwks_url="https://idp.example/jwks",
    )
    assert issuer.audiences == (AUDIENCE,)
