"""The migrations build exactly the schema the code declares."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine
from sqlmodel import SQLModel

from ramp.config import Settings
from ramp.db import tables  # noqa: F401  (registers the tables)
from ramp.db.migrate import upgrade


def test_migrated_schema_matches_the_tables(migrated: Settings) -> None:
    engine = create_engine(migrated.migration_url)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection)
        differences = compare_metadata(context, SQLModel.metadata)
    engine.dispose()
    assert differences == []


def test_upgrade_is_idempotent(migrated: Settings) -> None:
    upgrade(migrated)
    upgrade(migrated)
