"""several accounts per provider: a name and a priority per provider account

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-26 06:00:00.000000

A project may connect more than one account of the same provider (two Bridge accounts
for two legal entities): the unique (project_id, provider_code) goes, each account gets
a `name` (unique within its project and provider) and a routing `priority` (lower
first). Accounts stored before keep working: named "default", priority 100.

The old constraint was created unnamed: PostgreSQL named it itself (read back here),
SQLite keeps no name (batch mode gives it one through the naming convention).
A downgrade restores one account per provider; it fails while a project has two.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_CONVENTION = {"uq": "uq_%(table_name)s_%(column_0_name)s"}
NEW = "uq_provider_account_name"


def _unique_named(columns: list[str]) -> str:
    for unique in sa.inspect(op.get_bind()).get_unique_constraints("provider_account"):
        if list(unique["column_names"]) == columns:
            return unique["name"] or f"uq_provider_account_{columns[0]}"
    raise LookupError(f"no unique constraint on provider_account {columns}")


def upgrade() -> None:
    old = _unique_named(["project_id", "provider_code"])
    with op.batch_alter_table(
        "provider_account", schema=None, naming_convention=_CONVENTION
    ) as batch_op:
        batch_op.add_column(
            sa.Column("name", sa.String(length=64), nullable=False, server_default="default")
        )
        batch_op.add_column(
            sa.Column("priority", sa.Integer(), nullable=False, server_default="100")
        )
        batch_op.drop_constraint(old, type_="unique")
        batch_op.create_unique_constraint(NEW, ["project_id", "provider_code", "name"])


def downgrade() -> None:
    with op.batch_alter_table(
        "provider_account", schema=None, naming_convention=_CONVENTION
    ) as batch_op:
        batch_op.drop_constraint(NEW, type_="unique")
        batch_op.create_unique_constraint(
            "uq_provider_account_project_id", ["project_id", "provider_code"]
        )
        batch_op.drop_column("priority")
        batch_op.drop_column("name")
