"""webhook dispatcher: deliveries due from the database, endpoints failing since

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23 16:00:00.000000

Deliveries are now drained by dispatchers in the worker processes (docs/decisions.md,
"Issue 16"): `due_at` says when a delivery may be taken next, `lease_token` which claim
owns its attempt under way. Every delivery still on its way is handed to them here: a
PENDING one is due at once, a RETRYING one at its `next_attempt_at`. The delivery
workflows started by the previous code find their delivery handed over at their next
attempt and end without sending (activities/webhooks.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import ramp.db.types

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("webhook_delivery", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("due_at", ramp.db.types.UTCDateTime(timezone=True), nullable=True)
        )
        batch_op.add_column(sa.Column("lease_token", sa.String(length=36), nullable=True))
        batch_op.create_index("ix_webhook_delivery_due", ["due_at"], unique=False)
    with op.batch_alter_table("webhook_endpoint", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("failing_since", ramp.db.types.UTCDateTime(timezone=True), nullable=True)
        )
    op.execute(
        "UPDATE webhook_delivery SET due_at = COALESCE(next_attempt_at, updated_at)"
        " WHERE status IN ('PENDING', 'RETRYING')"
    )


def downgrade() -> None:
    with op.batch_alter_table("webhook_endpoint", schema=None) as batch_op:
        batch_op.drop_column("failing_since")
    with op.batch_alter_table("webhook_delivery", schema=None) as batch_op:
        batch_op.drop_index("ix_webhook_delivery_due")
        batch_op.drop_column("lease_token")
        batch_op.drop_column("due_at")
