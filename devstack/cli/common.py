"""What the `ramp` commands share: the data dir option, a session for one command."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import click
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.config import Settings
from ramp.db.engine import create_engine

DATA_DIR_OPTION = click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the stack's data lives: databases, generated keys, the environment it was "
    "started in (default: $RAMP_DATA_DIR or ./.ramp).",
)


@asynccontextmanager
async def command_session(settings: Settings) -> AsyncIterator[AsyncSession]:
    """A session on a short-lived engine, for one CLI command."""
    engine = create_engine(settings)
    try:
        async with AsyncSession(engine, expire_on_commit=False) as session:
            yield session
    finally:
        await engine.dispose()
