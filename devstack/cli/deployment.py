"""`ramp db` and `ramp keys`: what a deployment runs once (the schema, its keys)."""

from __future__ import annotations

from pathlib import Path

import click

from devstack.cli.common import command_settings, data_options


@click.group()
def db() -> None:
    """Database schema."""


@db.command("upgrade")
@data_options
def db_upgrade(data_dir: Path | None) -> int:
    """Apply every schema migration (SQLite in the data dir, or DATABASE_URL)."""
    from ramp.db.migrate import upgrade

    upgrade(command_settings(data_dir))
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


@keys.command("rotate")
@click.option(
    "--new-key",
    default=None,
    help="The new encryption key (Fernet, base64); a fresh one is generated if omitted.",
)
@data_options
def keys_rotate(new_key: str | None, data_dir: Path | None) -> int:
    """Re-encrypt every encrypted column under a new key (first in RAMP_ENCRYPTION_KEYS).

    Prints the new RAMP_ENCRYPTION_KEYS (new key first, the old ones after it: keyed
    hashes still need them) and the count of values re-encrypted per column. The
    sandbox's keys file is updated; a deployment sets the printed value.
    """
    import json

    from sqlalchemy import create_engine
    from sqlmodel import SQLModel

    from ramp.config import Environment
    from ramp.db import tables  # noqa: F401  (registers every table)
    from ramp.db.migrate import upgrade
    from ramp.security.encryption import SecretBox
    from ramp.security.keys import generate_encryption_key, replace_dev_encryption_keys
    from ramp.security.rotation import rotate_all

    settings = command_settings(data_dir)
    upgrade(settings)
    old = settings.encryption_keys.get_secret_value()
    key = new_key or generate_encryption_key()
    keys = ",".join([key, *(k.strip() for k in old.split(",") if k.strip() and k.strip() != key)])
    try:
        box = SecretBox(keys)
    except ValueError as error:
        raise click.ClickException(f"the new key is not a Fernet key: {error}") from None
    engine = create_engine(settings.migration_url)
    try:
        with engine.begin() as connection:
            counts = rotate_all(connection, SQLModel.metadata, box)
    finally:
        engine.dispose()
    if settings.ramp_env is Environment.SANDBOX:
        replace_dev_encryption_keys(settings.data_dir, keys)
    click.echo(json.dumps({"RAMP_ENCRYPTION_KEYS": keys, "reencrypted": counts}))
    return 0
