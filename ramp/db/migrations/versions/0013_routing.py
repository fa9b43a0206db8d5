"""routing: provider account health, a project's routing strategy, held quotes, the
sandbox's provider behaviours

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-26 03:00:00.000000

Four new tables and the intent's failover moves (issue 26); no existing row changes.
An account without a health row is HEALTHY; a project without a routing row routes
FIRST_ELIGIBLE; an intent without moves never failed over.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import ramp.db.types

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _when(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, ramp.db.types.UTCDateTime(timezone=True), nullable=nullable)


def _amount(name: str) -> sa.Column[object]:
    # As ramp.db.types.ExactAmount stores it: NUMERIC on PostgreSQL, text on SQLite.
    numeric = op.get_bind().dialect.name == "postgresql"
    return sa.Column(name, sa.Numeric() if numeric else sa.String(length=64), nullable=False)


def upgrade() -> None:
    with op.batch_alter_table("intent", schema=None) as batch_op:
        batch_op.add_column(sa.Column("provider_moves", sa.JSON(), nullable=True))
    op.create_table(
        "provider_account_health",
        sa.Column("provider_account_id", sa.String(length=36), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("consecutive_failures", sa.Integer(), nullable=False),
        sa.Column("recent_calls", sa.String(length=64), nullable=False),
        sa.Column("last_failure", sa.String(length=500), nullable=True),
        _when("last_failure_at", nullable=True),
        _when("probe_at", nullable=True),
        _when("probing_since", nullable=True),
        _when("updated_at"),
        sa.ForeignKeyConstraint(["provider_account_id"], ["provider_account.id"]),
        sa.PrimaryKeyConstraint("provider_account_id"),
    )
    op.create_table(
        "project_routing",
        sa.Column("project_id", sa.String(length=36), nullable=False),
        sa.Column("strategy", sa.String(length=32), nullable=False),
        _when("updated_at"),
        sa.ForeignKeyConstraint(["project_id"], ["project.id"]),
        sa.PrimaryKeyConstraint("project_id"),
    )
    op.create_table(
        "held_quote",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=36), nullable=False),
        sa.Column("provider_code", sa.String(length=64), nullable=False),
        sa.Column("rail", sa.String(length=16), nullable=False),
        sa.Column("source_currency", sa.String(length=32), nullable=False),
        sa.Column("destination_currency", sa.String(length=32), nullable=False),
        _amount("source_amount"),
        _amount("destination_amount"),
        _when("expires_at"),
        sa.ForeignKeyConstraint(["project_id"], ["project.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_held_quote_project_id", "held_quote", ["project_id"], unique=False)
    op.create_index("ix_held_quote_expires_at", "held_quote", ["expires_at"], unique=False)
    op.create_table(
        "sandbox_provider_behaviour",
        sa.Column("provider_account_id", sa.String(length=36), nullable=False),
        sa.Column("mode", sa.String(length=24), nullable=False),
        _when("until", nullable=True),
        _when("updated_at"),
        sa.ForeignKeyConstraint(["provider_account_id"], ["provider_account.id"]),
        sa.PrimaryKeyConstraint("provider_account_id"),
    )


def downgrade() -> None:
    with op.batch_alter_table("intent", schema=None) as batch_op:
        batch_op.drop_column("provider_moves")
    op.drop_table("sandbox_provider_behaviour")
    op.drop_index("ix_held_quote_expires_at", table_name="held_quote")
    op.drop_index("ix_held_quote_project_id", table_name="held_quote")
    op.drop_table("held_quote")
    op.drop_table("project_routing")
    op.drop_table("provider_account_health")
