"""exact amounts: intent.amount becomes NUMERIC on PostgreSQL

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 14:00:00.000000

Existing rows are kept: each decimal string is cast in place (`USING amount::numeric`).
An unconstrained NUMERIC keeps the scale of each value, so "100.00" reads back as
100.00 and "0.5" as 0.5: the API still shows every amount exactly as it was sent.
SQLite has no exact decimal type (NUMERIC affinity would turn "100.50" into a float):
there the column stays text, which ramp.db.types.ExactAmount reads as a Decimal, and
this revision changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _on_postgresql() -> bool:
    return op.get_bind().dialect.name == "postgresql"


def upgrade() -> None:
    if not _on_postgresql():
        return
    op.alter_column(
        "intent",
        "amount",
        type_=sa.Numeric(),
        existing_type=sa.String(length=64),
        existing_nullable=False,
        postgresql_using="amount::numeric",
    )


def downgrade() -> None:
    if not _on_postgresql():
        return
    # numeric to text keeps the scale: 100.00 becomes "100.00" again.
    op.alter_column(
        "intent",
        "amount",
        type_=sa.String(length=64),
        existing_type=sa.Numeric(),
        existing_nullable=False,
        postgresql_using="amount::text",
    )
