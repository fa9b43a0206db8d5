"""Columns stored encrypted: plaintext in Python, SecretBox ciphertext in the database.

The key travels with the engine (`attach_secret_box`, done by `create_engine`), never
through a global: an engine without one cannot read or write these columns at all, so
nothing is ever written in plain text by mistake.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Dialect, Text
from sqlalchemy.engine import Engine
from sqlalchemy.types import TypeDecorator

from ramp.security.encryption import MissingKey, SecretBox

_ATTRIBUTE = "ramp_secret_box"


def attach_secret_box(engine: Engine, box: SecretBox) -> None:
    setattr(engine.dialect, _ATTRIBUTE, box)


def _box(dialect: Dialect) -> SecretBox:
    box: SecretBox | None = getattr(dialect, _ATTRIBUTE, None)
    if box is None:
        raise MissingKey("this database engine has no encryption keys (RAMP_ENCRYPTION_KEYS)")
    return box


class EncryptedJSON(TypeDecorator[Any]):
    """A JSON value (dict, list...) stored as Fernet ciphertext of its JSON text."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        if value is None:
            return None
        return _box(dialect).encrypt(json.dumps(value, separators=(",", ":")))

    def process_result_value(self, value: str | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        return json.loads(_box(dialect).decrypt(value))
