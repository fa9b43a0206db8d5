"""Random tokens (links, sessions, API keys) and their stored hashes; passwords (argon2id)."""

from __future__ import annotations

import hashlib
import secrets
from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

# argon2-cffi's defaults are RFC 9106's low-memory recommendation, argon2id.
_HASHER = PasswordHasher()
MIN_PASSWORD_LENGTH = 12
MAX_PASSWORD_LENGTH = 256


def new_token(prefix: str = "") -> str:
    return prefix + secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """What is stored of a high-entropy token: SHA-256 is enough (nothing to guess)."""
    return hashlib.sha256(token.encode()).hexdigest()


def hash_password(password: str) -> str:
    return _HASHER.hash(password)


@cache
def _dummy_hash() -> str:
    """Compared against when the email is unknown, so that both cost the same. Made on
    first use: a hash costs 0.15 s of CPU, which every process importing the API (each
    CLI command) would pay at start."""
    return _HASHER.hash("not a password of anyone")


def password_matches(password: str, stored: str | None) -> bool:
    try:
        return _HASHER.verify(stored or _dummy_hash(), password) and stored is not None
    except (VerificationError, InvalidHashError):
        return False


def password_problem(password: str) -> str | None:
    """Why a new password is refused, or None."""
    if len(password) < MIN_PASSWORD_LENGTH:
        return f"the password must have at least {MIN_PASSWORD_LENGTH} characters"
    if len(password) > MAX_PASSWORD_LENGTH:
        return f"the password must have at most {MAX_PASSWORD_LENGTH} characters"
    return None
