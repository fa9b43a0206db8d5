"""Settings as the CLI builds them: environment first, then sandbox defaults."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ramp.config import Environment, Settings
from ramp.security.keys import dev_keys


def load_settings(data_dir: Path | None = None, **overrides: Any) -> Settings:
    """Settings from the environment, with `overrides` (by env var name) on top.

    In the sandbox, keys missing from the environment come from the data dir (made on
    first use), so that a developer never handles key material. Production never
    invents keys: a missing one stops the process with a clear message.
    """
    if data_dir is not None:
        overrides["RAMP_DATA_DIR"] = str(data_dir)
    settings = Settings(**overrides)
    if settings.ramp_env is Environment.SANDBOX:
        keys = dev_keys(settings.data_dir)
        missing = {
            "RAMP_SIGNING_KEY": not settings.signing_key.get_secret_value(),
            "RAMP_ENCRYPTION_KEYS": not settings.encryption_keys.get_secret_value(),
        }
        extra: dict[str, Any] = {
            name: keys[name] for name, is_missing in missing.items() if is_missing
        }
        if extra:
            settings = Settings(**overrides, **extra)
    return settings
