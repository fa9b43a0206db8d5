"""Schema migrations (Alembic), configured in code so no alembic.ini is needed."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from ramp.config import Settings
from ramp.db.engine import prepare_sqlite
from ramp.security.encryption import SecretBox

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(settings: Settings) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    # '%' must be escaped for configparser (passwords may contain it).
    config.set_main_option("sqlalchemy.url", settings.migration_url.replace("%", "%%"))
    return config


def upgrade(settings: Settings, revision: str = "head") -> None:
    if settings.migration_url.startswith("sqlite"):
        prepare_sqlite(settings)
    config = alembic_config(settings)
    # Data migrations that encrypt existing rows need the keys (None: not configured;
    # such a migration refuses to run on rows it cannot encrypt).
    keys = settings.encryption_keys.get_secret_value()
    config.attributes["secret_box"] = SecretBox(keys) if keys else None
    command.upgrade(config, revision)
