"""A project's signing keys as an attempt carries them, and their decryption, cached.

The keys are read with the rows a delivery is stored or claimed with (a join, no read
of their own) and serve the attempts that start as that transaction commits; an attempt
that waited for its endpoint reads them again when it starts, so a rotation signs every
attempt that starts after it. Plain secrets are cached by their ciphertext: a rotation
stores a new ciphertext (Fernet encrypts with a fresh IV each time), so a rotated
secret is never found here; whether the previous secret still signs is decided at each
attempt.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import col
from sqlmodel.sql.expression import Select

from ramp.config import Environment
from ramp.db.tables import Project
from ramp.security.encryption import SecretBox
from ramp.webhooks.sending import Signer

# Columns of `Project` read beside a delivery (in this order: see `project_keys`).
KEY_COLUMNS = (
    col(Project.client_id),
    col(Project.client_secret_encrypted),
    col(Project.previous_client_secret_hash),
    col(Project.previous_client_secret_encrypted),
    col(Project.previous_secret_expires_at),
    col(Project.environment),
)
# Decrypted secrets kept per process; past this, the cache starts again.
MAX_CACHED = 4096


@dataclass(frozen=True)
class ProjectKeys:
    client_id: str
    secret_encrypted: str
    # Set while the secret a rotation replaced may still sign (until `previous_until`).
    previous_encrypted: str | None
    previous_until: datetime | None
    # Production endpoints must resolve to public addresses at each attempt.
    public_only: bool


def with_keys(*columns: Any) -> Select[*tuple[Any, ...]]:
    """SELECT `columns` and KEY_COLUMNS (join `Project` to the query's table)."""
    return Select(*columns, *KEY_COLUMNS)


def project_keys(row: Any) -> ProjectKeys:
    """From a result row whose last columns are KEY_COLUMNS."""
    client_id, secret, previous_hash, previous, until, environment = tuple(row)[-6:]
    return ProjectKeys(
        client_id=client_id,
        secret_encrypted=secret,
        previous_encrypted=previous if previous_hash is not None and previous else None,
        previous_until=until if previous_hash is not None else None,
        public_only=environment == Environment.PRODUCTION,
    )


class SecretCache:
    def __init__(self, secret_box: SecretBox) -> None:
        self._box = secret_box
        self._plain: dict[str, str] = {}

    def signer(self, keys: ProjectKeys, now: datetime) -> Signer:
        """The secrets signing at `now`: the current one, and the previous one during its
        grace period (as `ramp.projects.signing_secrets` says)."""
        secrets = [self._decrypt(keys.secret_encrypted)]
        if (
            keys.previous_encrypted is not None
            and keys.previous_until is not None
            and now < keys.previous_until
        ):
            secrets.append(self._decrypt(keys.previous_encrypted))
        return Signer(keys.client_id, tuple(secrets), keys.public_only)

    def _decrypt(self, encrypted: str) -> str:
        plain = self._plain.get(encrypted)
        if plain is None:
            if len(self._plain) >= MAX_CACHED:
                self._plain.clear()
            plain = self._plain[encrypted] = self._box.decrypt(encrypted)
        return plain
