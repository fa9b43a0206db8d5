"""Strict Sign-In with Ethereum (EIP-4361) verification for the wallet sign-in flow.

Pure functions: no database, no web framework and no network. Nonce issuance and
single-use consumption belong to the caller: it checks the returned ``nonce`` against
its nonce store and consumes it only after :func:`verify_sign_in` succeeds.

Only EOA signatures (EIP-191 ``personal_sign``, recovered with ecrecover) are
supported. Smart-contract wallets (EIP-1271 / EIP-6492) are out of scope because
verifying them needs an RPC call to the chain, and this module must not do network I/O.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from types import ModuleType
from typing import Any, Final
from urllib.parse import urlsplit

from ramp.errors import SiweError

__all__ = [
    "MAX_LINE_LENGTH",
    "MAX_MESSAGE_LENGTH",
    "WalletSignIn",
    "WalletSignInError",
    "build_sign_in_message",
    "verify_sign_in",
]

# The library's ABNF parser is roughly quadratic in line length (a 500-character line
# costs ~0.2 s of CPU, 4 KB of garbage ~8 s) and the challenge endpoint is
# unauthenticated, so bound the input before parsing. Real messages are ~250-600 chars.
MAX_MESSAGE_LENGTH: Final = 1024
MAX_LINE_LENGTH: Final = 256


class WalletSignInError(Exception):
    """A sign-in message or signature was rejected.

    ``code`` is a stable machine code (a :class:`ramp.errors.SiweError`); ``message``
    is human text that never echoes the submitted message or signature.
    """

    def __init__(self, code: SiweError, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class WalletSignIn:
    """The verified facts of a sign-in message."""

    address: str  # EIP-55 checksummed
    chain_id: int
    nonce: str
    issued_at: datetime
    expiration_time: datetime | None


@cache
def _siwe() -> ModuleType:
    """The siwe library, imported on first use: it imports web3, about a second of CPU
    that every process importing the API (the CLI, the worker, each test's child) would
    otherwise pay at start, and only wallet sign-ins need it."""
    with warnings.catch_warnings():
        # siwe imports web3, whose providers package imports `websockets.legacy`, which
        # emits a DeprecationWarning at import time (websockets 15.0.1,
        # websockets/legacy/__init__.py:6, reached via web3/providers/legacy_websocket.py:24).
        # Silence exactly that warning, only around this import, so `-W error` test runs
        # do not fail on third-party code we cannot change.
        warnings.filterwarnings(
            "ignore",
            message=r"websockets\.legacy is deprecated",
            category=DeprecationWarning,
        )
        import siwe.siwe
    library: ModuleType = siwe
    return library


def _library_errors() -> tuple[tuple[type[Exception], SiweError, str], ...]:
    # Most specific library exceptions first: they all derive from siwe.VerificationError.
    siwe = _siwe()
    return (
        (siwe.DomainMismatch, SiweError.SIWE_DOMAIN_MISMATCH, "message domain does not match"),
        (siwe.UriMismatch, SiweError.SIWE_URI_MISMATCH, "message URI does not match"),
        (
            siwe.SchemeMismatch,
            SiweError.SIWE_SCHEME_MISMATCH,
            "message scheme does not match the URI",
        ),
        (siwe.ChainIdMismatch, SiweError.SIWE_CHAIN_MISMATCH, "message chain ID is not accepted"),
        (siwe.ExpiredMessage, SiweError.SIWE_EXPIRED, "message has expired"),
        (
            siwe.NotYetValidMessage,
            SiweError.SIWE_NOT_YET_VALID,
            "message is not valid yet (Not Before)",
        ),
        (
            siwe.InvalidSignature,
            SiweError.SIWE_BAD_SIGNATURE,
            "signature does not match the address",
        ),
        (siwe.NonceMismatch, SiweError.SIWE_NONCE_MISMATCH, "message nonce does not match"),
    )


def _iso8601(value: object) -> datetime:
    parsed: datetime = _siwe().siwe.datetime_from_iso8601_string(str(value))
    return parsed


def _require_aware(name: str, value: datetime) -> None:
    # Naive datetimes would be silently read as local time (build) or UTC (verify).
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} must be timezone-aware")


def _parse(message: str) -> Any:
    if len(message) > MAX_MESSAGE_LENGTH or any(
        len(line) > MAX_LINE_LENGTH for line in message.split("\n")
    ):
        raise WalletSignInError(SiweError.SIWE_MALFORMED, "message is too long")
    try:
        # abnf=True is the strict EIP-4361 grammar (the regex parser is laxer).
        parsed = _siwe().SiweMessage.from_message(message, abnf=True)
    except (ValueError, RecursionError):
        # ValueError also covers pydantic.ValidationError from the field validators.
        raise WalletSignInError(SiweError.SIWE_MALFORMED, "not a valid EIP-4361 message") from None
    # The library verifies the signature over its own re-serialisation of the parsed
    # fields, not over the submitted text; insist they are identical so the bytes the
    # wallet signed are exactly the bytes we checked.
    if parsed.prepare_message() != message:
        raise WalletSignInError(
            SiweError.SIWE_MALFORMED, "message is not in canonical EIP-4361 form"
        )
    # EIP-4361 requires an EIP-55 address; the library only warns on all-lower/upper case.
    from eth_utils.address import is_checksum_address  # lazily, as siwe (`_siwe`)

    if not is_checksum_address(parsed.address):
        raise WalletSignInError(SiweError.SIWE_MALFORMED, "address is not EIP-55 checksummed")
    return parsed


def verify_sign_in(
    message: str,
    signature: str,
    *,
    domain: str,
    uri: str,
    chain_id: int,
    now: datetime,
    max_age: timedelta,
    clock_skew: timedelta = timedelta(seconds=60),
) -> WalletSignIn:
    """Verify an EIP-4361 message and its EIP-191 signature, strictly and offline.

    Checks, in order: size and grammar (``SIWE_MALFORMED``), the scheme if the message
    carries one (must equal ``uri``'s), exact ``domain``, exact ``uri``, ``chain_id``,
    Expiration Time and Not Before against ``now`` (no skew: they are the signer's own
    bounds), the signature recovering the message's address, and finally that Issued
    At lies within ``[now - max_age, now + clock_skew]``.

    The nonce is *not* checked for freshness here: the caller looks the returned
    ``nonce`` up in its store and consumes it after this function returns.
    CPU cost is tens of milliseconds (pure-Python ABNF parsing), so async callers
    should run it in a worker thread.

    Raises:
        WalletSignInError: the message or signature is rejected (see ``code``).
        ValueError: ``now`` is naive or ``max_age``/``clock_skew`` is negative.
    """
    _require_aware("now", now)
    if max_age <= timedelta(0) or clock_skew < timedelta(0):
        raise ValueError("max_age must be positive and clock_skew non-negative")

    parsed = _parse(message)
    # Without an explicit scheme the library skips the check; when the message names
    # one it must be the scheme the service is actually served on.
    expected_scheme = urlsplit(uri).scheme if parsed.scheme is not None else None
    try:
        parsed.verify(
            signature,
            scheme=expected_scheme,
            domain=domain,
            # Freshness is the caller's job (nonce store); passing the message's own
            # nonce satisfies strict mode, which refuses to run without one.
            nonce=parsed.nonce,
            uri=uri,
            chain_id=chain_id,
            timestamp=now,
            provider=None,  # no RPC: EOA signatures only (see module docstring)
            strict=True,
        )
    except _siwe().VerificationError as exc:
        for exc_type, code, text in _library_errors():
            if isinstance(exc, exc_type):
                raise WalletSignInError(code, text) from None
        raise WalletSignInError(
            SiweError.SIWE_VERIFICATION_FAILED, "message was rejected"
        ) from None

    issued_at = _iso8601(parsed.issued_at)
    if now - issued_at > max_age:
        raise WalletSignInError(SiweError.SIWE_ISSUED_AT_TOO_OLD, "message was issued too long ago")
    if issued_at - now > clock_skew:
        raise WalletSignInError(
            SiweError.SIWE_ISSUED_AT_IN_FUTURE, "message is issued in the future"
        )

    expiration_time: datetime | None = (
        _iso8601(parsed.expiration_time) if parsed.expiration_time is not None else None
    )
    return WalletSignIn(
        address=str(parsed.address),
        chain_id=int(parsed.chain_id),
        nonce=str(parsed.nonce),
        issued_at=issued_at,
        expiration_time=expiration_time,
    )


def build_sign_in_message(
    *,
    domain: str,
    uri: str,
    address: str,
    chain_id: int,
    nonce: str,
    issued_at: datetime,
    expiration_time: datetime | None = None,
    statement: str | None = None,
) -> str:
    """Build a standard EIP-4361 message (no scheme prefix, request ID or resources).

    The address is EIP-55 checksummed; datetimes must be timezone-aware and are
    rendered in UTC with millisecond precision, as wallets and ``siwe`` do.

    Raises:
        ValueError: an argument is not valid for EIP-4361 (bad address, nonce shorter
            than 8 alphanumerics, statement with a newline, naive datetime, ...).
    """
    _require_aware("issued_at", issued_at)
    if expiration_time is not None:
        _require_aware("expiration_time", expiration_time)
    siwe = _siwe()
    from eth_utils.address import to_checksum_address  # lazily, as siwe

    message = siwe.SiweMessage(
        domain=domain,
        address=to_checksum_address(address),
        statement=statement,
        uri=uri,
        version="1",
        chain_id=chain_id,
        nonce=nonce,
        issued_at=siwe.ISO8601Datetime.from_datetime(issued_at),
        expiration_time=(
            siwe.ISO8601Datetime.from_datetime(expiration_time)
            if expiration_time is not None
            else None
        ),
    )
    text: str = message.prepare_message()
    return text
