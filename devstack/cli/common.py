"""What the `ramp` commands share: the data dir and database options, the settings
and a session for one command."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import click
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.config import Settings
from ramp.db.engine import create_engine
from ramp.settings_loader import StackMismatch, check_stack_database, load_settings

DATA_DIR_OPTION = click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the stack's data lives: databases, generated keys, the environment it was "
    "started in (default: $RAMP_DATA_DIR or ./.ramp).",
)
_DATABASE_URL = "database_url"

F = TypeVar("F", bound=Callable[..., Any])


def _remember_database_url(context: click.Context, _: click.Parameter, value: str | None) -> None:
    if value:
        context.meta[_DATABASE_URL] = value


_DATABASE_URL_OPTION = click.option(
    "--database-url",
    default=None,
    expose_value=False,
    callback=_remember_database_url,
    help="The service's database (sqlite:///... or postgresql://...; default: "
    "$DATABASE_URL, else the one the data dir's `ramp dev` runs on, else SQLite in the "
    "data dir).",
)


def data_options(command: F) -> F:
    """`--data-dir` and `--database-url`, for a command that reads or writes the
    service's data (its settings come from `command_settings`)."""
    return DATA_DIR_OPTION(_DATABASE_URL_OPTION(command))


def command_settings(data_dir: Path | None) -> Settings:
    """The settings of the running command: the environment (and .env), `--database-url`
    on top; refused when the data dir's local stack runs on another database, so that a
    command never creates a second database nor prints credentials the stack refuses."""
    context = click.get_current_context(silent=True)
    database_url = context.meta.get(_DATABASE_URL) if context is not None else None
    overrides = {"DATABASE_URL": database_url} if database_url else {}
    settings = load_settings(data_dir, **overrides)
    try:
        check_stack_database(settings)
    except StackMismatch as error:
        raise click.ClickException(str(error)) from None
    return settings


@asynccontextmanager
async def command_session(settings: Settings) -> AsyncIterator[AsyncSession]:
    """A session on a short-lived engine, for one CLI command."""
    engine = create_engine(settings)
    try:
        async with AsyncSession(engine, expire_on_commit=False) as session:
            yield session
    finally:
        await engine.dispose()
