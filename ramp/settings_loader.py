"""Settings as the CLI builds them: environment first, then the data dir's defaults."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ramp.config import Environment, Settings
from ramp.security.files import private_dir
from ramp.security.keys import dev_keys

# Written by `ramp dev` into its data dir: which environment that local stack runs, so
# that every `ramp` command pointed at the data dir works in the same one.
STACK_FILE = "stack.json"


class StackMismatch(ValueError):
    """A data dir holds a local stack of the other environment."""


def stack_environment(data_dir: Path) -> Environment | None:
    """The environment of the local stack in `data_dir`, if `ramp dev` made one there
    (a data dir from before the file existed holds a sandbox)."""
    path = data_dir / STACK_FILE
    if path.exists():
        return Environment(json.loads(path.read_text())["environment"])
    if (data_dir / "keys.json").exists():
        return Environment.SANDBOX
    return None


def mark_stack(data_dir: Path, environment: Environment, public_url: str | None = None) -> None:
    """Records the local stack's environment (and where its API is served, for the
    webhook URLs the commands print); a data dir never changes environment (its
    projects, keys and Temporal history belong to one)."""
    found = stack_environment(data_dir)
    if found is not None and found is not environment:
        raise StackMismatch(
            f"{data_dir} holds a local {found.value} stack; use another --data-dir "
            f"for {environment.value}"
        )
    private_dir(data_dir)
    stack = {"environment": environment.value, "publicUrl": public_url}
    (data_dir / STACK_FILE).write_text(json.dumps(stack))


def _stack_public_url(data_dir: Path) -> str | None:
    path = data_dir / STACK_FILE
    if not path.exists():
        return None
    found = json.loads(path.read_text()).get("publicUrl")
    return str(found) if found else None


class InvalidSettings(ValueError):
    """A setting from the environment (or .env) refused: each problem on a line, by its
    variable's name, for a command to print instead of a traceback."""

    def __init__(self, error: ValidationError) -> None:
        lines = []
        for problem in error.errors():
            where = ".".join(str(part) for part in problem["loc"]) or "settings"
            lines.append(f"{where}: {problem['msg']}")
        super().__init__("\n".join(lines))


# Where a local stack's (`ramp dev`) provider calls may go besides public addresses.
LOCAL_STACK_PROVIDER_NETWORKS = "127.0.0.0/8, ::1/128"


def load_settings(data_dir: Path | None = None, **overrides: Any) -> Settings:
    """Settings from the environment, with `overrides` (by env var name) on top;
    InvalidSettings if one is refused."""
    try:
        return _load_settings(data_dir, **overrides)
    except ValidationError as error:
        raise InvalidSettings(error) from None


def _load_settings(data_dir: Path | None = None, **overrides: Any) -> Settings:
    """Settings from the environment, with `overrides` (by env var name) on top.

    A data dir made by `ramp dev` sets the environment (unless RAMP_ENV says otherwise)
    and, for that local stack, keys missing from the environment come from the data dir
    (made on first use), so that a developer never handles key material. A deployed
    production never invents keys: a missing one stops the process with a clear message.
    """
    if data_dir is not None:
        overrides["RAMP_DATA_DIR"] = str(data_dir)
    settings = Settings(**overrides)
    local = stack_environment(settings.data_dir)
    if local is not None and "RAMP_ENV" not in overrides and "RAMP_ENV" not in os.environ:
        overrides["RAMP_ENV"] = local.value
        settings = Settings(**overrides)
    if local is not None and local is settings.ramp_env and not settings.provider_networks:
        # Production on one machine calls its providers' simulators on loopback.
        overrides["RAMP_PROVIDER_NETWORKS"] = LOCAL_STACK_PROVIDER_NETWORKS
        settings = Settings(**overrides)
    public_url = _stack_public_url(settings.data_dir)
    unset = "RAMP_PUBLIC_URL" not in overrides and "RAMP_PUBLIC_URL" not in os.environ
    if public_url and unset:
        overrides["RAMP_PUBLIC_URL"] = public_url
        settings = Settings(**overrides)
    if settings.ramp_env is Environment.SANDBOX or local is settings.ramp_env:
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
