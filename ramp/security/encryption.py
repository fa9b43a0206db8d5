"""Encryption at rest for secrets and personal data we must be able to read back."""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac

from cryptography.fernet import Fernet, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from ramp.config import Settings

# HKDF `info` of the keyed-hash key: a key derived for one purpose only, so a hash can
# never be confused with (or help attack) the Fernet keys it comes from.
_KEYED_HASH_INFO = b"ramp keyed hash v1"
# HKDF `info` of the key that signs list cursors (api/pagination.py).
_LIST_CURSOR_INFO = b"ramp list cursor v1"


class MissingKey(RuntimeError):
    """Key material is absent or unusable: a configuration error, fatal at start."""


class SecretBox:
    """Fernet (AES-128-CBC + HMAC-SHA256); several keys allow rotation.

    Also a keyed hash (HMAC-SHA256 under a key derived from each data key) for values
    that must be compared without being stored: the first key hashes, as it encrypts.
    """

    def __init__(self, keys: str) -> None:
        raw = [key.strip() for key in keys.split(",") if key.strip()]
        fernets = [Fernet(key.encode()) for key in raw]
        if not fernets:
            raise MissingKey("RAMP_ENCRYPTION_KEYS is not set (generate one: `ramp keys generate`)")
        self._fernet = MultiFernet(fernets)
        self._hash_keys = [_derive_key(key, _KEYED_HASH_INFO) for key in raw]
        self._cursor_keys = [_derive_key(key, _LIST_CURSOR_INFO) for key in raw]

    @classmethod
    def from_settings(cls, settings: Settings) -> SecretBox:
        return cls(settings.encryption_keys.get_secret_value())

    def encrypt(self, plaintext: str) -> str:
        return self._fernet.encrypt(plaintext.encode()).decode()

    def decrypt(self, token: str) -> str:
        return self._fernet.decrypt(token.encode()).decode()

    def rotate(self, token: str) -> str:
        """`token` re-encrypted under the first key (it may be under any of the keys)."""
        return self._fernet.rotate(token.encode()).decode()

    def keyed_hash(self, value: str) -> str:
        """Hex HMAC-SHA256 of `value` under the current key: what to store."""
        return _hmac(self._hash_keys[0], value)

    def keyed_hashes(self, value: str) -> list[str]:
        """The hash of `value` under every key: what a lookup must match (rotation)."""
        return [_hmac(key, value) for key in self._hash_keys]

    def cursor_signature(self, value: str) -> str:
        """Hex HMAC-SHA256 of a list cursor under the current key."""
        return _hmac(self._cursor_keys[0], value)

    def cursor_signature_matches(self, value: str, signature: str) -> bool:
        """Whether `signature` is a cursor signature of `value` under any key (a cursor
        handed out before a key rotation still pages)."""
        return any(hmac.compare_digest(_hmac(key, value), signature) for key in self._cursor_keys)


@functools.lru_cache(maxsize=4)
def cached_secret_box(keys: str) -> SecretBox:
    """One SecretBox per key set, for callers that only hold settings (the API)."""
    return SecretBox(keys)


def _derive_key(fernet_key: str, purpose: bytes) -> bytes:
    material = base64.urlsafe_b64decode(fernet_key.encode())
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=purpose).derive(material)


def _hmac(key: bytes, value: str) -> str:
    return hmac.new(key, value.encode(), hashlib.sha256).hexdigest()
