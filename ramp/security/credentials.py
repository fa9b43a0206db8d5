"""Project client credentials (HTTP Basic)."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

# Every client id we issue has this shape (see generate_client_credentials).
CLIENT_ID_SHAPE = re.compile(r"ci_(sandbox|live)_[0-9a-f]{24}")


@dataclass(frozen=True)
class ClientCredentials:
    client_id: str
    client_secret: str


def generate_client_credentials(sandbox: bool) -> ClientCredentials:
    # The prefix tells a leaked secret's environment at a glance (and to secret scanners).
    prefix = "sk_sandbox_" if sandbox else "sk_live_"
    return ClientCredentials(
        client_id=f"{'ci_sandbox_' if sandbox else 'ci_live_'}{secrets.token_hex(12)}",
        client_secret=prefix + secrets.token_urlsafe(32),
    )


def hash_client_secret(secret: str) -> str:
    # The secret has 256 bits of entropy: a fast hash resists guessing as well as a
    # slow KDF would, and keeps authentication cheap on every request.
    return hashlib.sha256(secret.encode()).hexdigest()


# Compared against when the client id is unknown, so both failures cost the same.
DUMMY_SECRET_HASH = hash_client_secret(secrets.token_urlsafe(32))


def client_secret_matches(secret: str, stored_hash: str) -> bool:
    return hmac.compare_digest(hash_client_secret(secret), stored_hash)
