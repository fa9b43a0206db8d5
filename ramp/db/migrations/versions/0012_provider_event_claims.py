"""provider event claims: a due time and a lease for each pending provider event

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-26 01:00:00.000000

A relay claims the pending events it signals (their `due_at` pushed past a lease, a
`lease_token` stamped), as the webhook dispatchers claim deliveries: relays in several
workers no longer signal each event once each. Events still pending become due at once.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import ramp.db.types

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("provider_webhook_event", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("due_at", ramp.db.types.UTCDateTime(timezone=True), nullable=True)
        )
        batch_op.add_column(sa.Column("lease_token", sa.String(length=36), nullable=True))
        batch_op.create_index(
            batch_op.f("ix_provider_webhook_event_due_at"), ["due_at"], unique=False
        )
    op.execute("UPDATE provider_webhook_event SET due_at = received_at WHERE applied_at IS NULL")


def downgrade() -> None:
    with op.batch_alter_table("provider_webhook_event", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_provider_webhook_event_due_at"))
        batch_op.drop_column("lease_token")
        batch_op.drop_column("due_at")
