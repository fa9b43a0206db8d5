"""`ramp db` and `ramp keys`: what a deployment runs once (the schema, its keys)."""

from __future__ import annotations

from pathlib import Path

import click

from devstack.cli.common import DATA_DIR_OPTION
from ramp.settings_loader import load_settings


@click.group()
def db() -> None:
    """Database schema."""


@db.command("upgrade")
@DATA_DIR_OPTION
def db_upgrade(data_dir: Path | None) -> int:
    """Apply every schema migration (SQLite in the data dir, or DATABASE_URL)."""
    from ramp.db.migrate import upgrade

    upgrade(load_settings(data_dir))
    click.echo("database schema is up to date", err=True)
    return 0


# --- keys -------------------------------------------------------------------------


@click.group()
def keys() -> None:
    """Key material."""


@keys.command("generate")
def keys_generate() -> int:
    """Print a fresh RAMP_SIGNING_KEY and RAMP_ENCRYPTION_KEYS, as .env lines."""
    from ramp.security.keys import generated_keys

    for name, value in generated_keys().items():
        # One line per variable: newlines escaped, which Settings accepts back.
        click.echo(f'{name}="{value.strip().replace(chr(10), chr(92) + "n")}"')
    return 0
