"""Encryption at rest for secrets we must be able to read back."""

from __future__ import annotations

from cryptography.fernet import Fernet, MultiFernet

from ramp.config import Settings


class MissingKey(RuntimeError):
    """Key material is absent or unusable: a configuration error, fatal at start."""


class SecretBox:
    """Fernet (AES-128-CBC + HMAC-SHA256); several keys allow rotation."""

    def __init__(self, keys: str) -> None:
        fernets = [Fernet(key.strip().encode()) for key in keys.split(",") if key.strip()]
        if not fernets:
            raise MissingKey("RAMP_ENCRYPTION_KEYS is not set (generate one: `ramp keys generate`)")
        self._fernet = MultiFernet(fernets)

    @classmethod
    def from_settings(cls, settings: Settings) -> SecretBox:
        return cls(settings.encryption_keys.get_secret_value())

    def encrypt(self, plaintext: str) -> str:
        return self._fernet.encrypt(plaintext.encode()).decode()

    def decrypt(self, token: str) -> str:
        return self._fernet.decrypt(token.encode()).decode()
