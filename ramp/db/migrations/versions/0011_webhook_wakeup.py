"""webhook wake-up: a NOTIFY when deliveries are stored (PostgreSQL)

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-25 14:00:00.000000

An INSERT into webhook_delivery that stores a delivery due for any dispatcher (no
lease yet) notifies the channel the dispatchers LISTEN on (ramp/webhooks/wakeup.py);
deliveries stored already leased to the writer's own dispatcher wake nobody. PostgreSQL
sends it when the transaction commits and drops it on rollback; a statement-level
trigger costs the writer no round trip of its own. SQLite has no notifications: there
the dispatcher runs in the writing process.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The channel is written out below, not imported (a migration must not change when
# the code does): ramp.webhooks.wakeup.CHANNEL.


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(
        """
        CREATE FUNCTION ramp_webhook_delivery_stored() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            IF EXISTS (SELECT 1 FROM stored WHERE lease_token IS NULL) THEN
                PERFORM pg_notify('ramp_webhook_deliveries', '');
            END IF;
            RETURN NULL;
        END
        $$
        """
    )
    op.execute(
        """
        CREATE TRIGGER webhook_delivery_stored
        AFTER INSERT ON webhook_delivery REFERENCING NEW TABLE AS stored
        FOR EACH STATEMENT EXECUTE FUNCTION ramp_webhook_delivery_stored()
        """
    )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("DROP TRIGGER webhook_delivery_stored ON webhook_delivery")
    op.execute("DROP FUNCTION ramp_webhook_delivery_stored()")
