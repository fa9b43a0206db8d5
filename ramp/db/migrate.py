"""Schema migrations (Alembic), configured in code so no alembic.ini is needed."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from ramp.config import Settings

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(settings: Settings) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    # '%' must be escaped for configparser (passwords may contain it).
    config.set_main_option("sqlalchemy.url", settings.migration_url.replace("%", "%%"))
    return config


def upgrade(settings: Settings, revision: str = "head") -> None:
    if settings.migration_url.startswith("sqlite"):
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    command.upgrade(alembic_config(settings), revision)
