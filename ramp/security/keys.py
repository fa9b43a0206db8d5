"""Key material: generated once, then read from settings."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

from cryptography.fernet import Fernet
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from ramp.security.files import private_dir


def generate_signing_key() -> str:
    """A new Ed25519 private key, PEM-encoded."""
    return (
        Ed25519PrivateKey.generate()
        .private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        .decode()
    )


def generate_encryption_key() -> str:
    return Fernet.generate_key().decode()


def generated_keys() -> dict[str, str]:
    """Environment variables holding a fresh set of keys."""
    return {
        "RAMP_SIGNING_KEY": generate_signing_key(),
        "RAMP_ENCRYPTION_KEYS": generate_encryption_key(),
    }


def dev_keys(data_dir: Path) -> dict[str, str]:
    """The sandbox's keys, generated on first start and kept in the data dir.

    Kept so that a second `ramp dev` can still decrypt what the first one stored.
    """
    path = data_dir / "keys.json"
    if not path.exists():
        private_dir(data_dir)
        _create_once(path, generated_keys())
    keys: dict[str, str] = json.loads(path.read_text())
    return keys


def _create_once(path: Path, keys: dict[str, str]) -> None:
    """Writes `keys` to `path` unless another process got there first: processes started
    together on a new data dir (an API and a dispatcher, say) each generate keys, and
    all must end up with one set. The file is written aside (mode 0600) and linked into
    place, so it appears whole, and the first link wins; the others read it."""
    fd, aside = tempfile.mkstemp(dir=path.parent, prefix=".keys-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as file:
            json.dump(keys, file)
        with contextlib.suppress(FileExistsError):
            os.link(aside, path)
    finally:
        os.unlink(aside)


def replace_dev_encryption_keys(data_dir: Path, keys: str) -> None:
    """After `ramp keys rotate`: the sandbox's keys file holds the new key list."""
    path = data_dir / "keys.json"
    if not path.exists():
        return
    stored: dict[str, str] = json.loads(path.read_text())
    stored["RAMP_ENCRYPTION_KEYS"] = keys
    temporary = path.with_suffix(".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as file:
        json.dump(stored, file)
    os.replace(temporary, path)
