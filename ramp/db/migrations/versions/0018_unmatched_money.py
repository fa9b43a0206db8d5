"""money no intent matches: events and deliveries without an intent

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-26 06:00:00.000000

A payment that reaches a provider account and matches no intent at all (Monerium: a
SEPA payment to a customer's IBAN quoting none of our references, for no open
on-ramp's amount) is reported as a `DEPOSIT_UNMATCHED` event with `intentId` null
(ramp/provider_webhooks/unmatched.py): the events store and the delivery log hold rows
without an intent. Only the NOT NULL constraints change; every stored row keeps its
intent.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    for table in ("webhook_event", "webhook_delivery"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.alter_column("intent_id", existing_type=sa.String(length=36), nullable=True)


def downgrade() -> None:
    # Events about no intent cannot stay: they go with their deliveries.
    op.execute(
        "DELETE FROM webhook_attempt WHERE delivery_id IN "
        "(SELECT id FROM webhook_delivery WHERE intent_id IS NULL)"
    )
    op.execute("DELETE FROM webhook_delivery WHERE intent_id IS NULL")
    op.execute("DELETE FROM webhook_event WHERE intent_id IS NULL")
    for table in ("webhook_event", "webhook_delivery"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.alter_column("intent_id", existing_type=sa.String(length=36), nullable=False)
