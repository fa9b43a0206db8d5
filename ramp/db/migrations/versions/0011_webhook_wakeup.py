"""webhook wake-up: a NOTIFY when deliveries are stored (PostgreSQL)

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-25 14:00:00.000000

Every INSERT into webhook_delivery notifies the channel the dispatchers LISTEN on
(ramp/webhooks/wakeup.py). PostgreSQL sends it when the transaction commits and drops
it on rollback; a statement-level trigger costs the writer no round trip of its own.
SQLite has no notifications: there the dispatcher runs in the writing process.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Kept here, not imported: a migration must not change when the code does.
_CHANNEL = "ramp_webhook_deliveries"


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(
        f"""
        CREATE FUNCTION ramp_webhook_delivery_stored() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('{_CHANNEL}', '');
            RETURN NULL;
        END
        $$
        """
    )
    op.execute(
        """
        CREATE TRIGGER webhook_delivery_stored
        AFTER INSERT ON webhook_delivery
        FOR EACH STATEMENT EXECUTE FUNCTION ramp_webhook_delivery_stored()
        """
    )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("DROP TRIGGER webhook_delivery_stored ON webhook_delivery")
    op.execute("DROP FUNCTION ramp_webhook_delivery_stored()")
