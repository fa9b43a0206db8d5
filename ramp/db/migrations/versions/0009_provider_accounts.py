"""provider accounts: status, masked hint, webhook key; provider customers; the
provider webhook inbox; transactions found by provider reference

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-23 16:00:00.000000

Existing provider accounts (the sandbox's mocks, no credentials) become HEALTHY, or
DISABLED where they were inactive.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import ramp.db.types

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("provider_account", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("status", sa.String(length=16), nullable=False, server_default="HEALTHY")
        )
        batch_op.add_column(sa.Column("status_reason", sa.String(length=500), nullable=True))
        batch_op.add_column(sa.Column("credentials_hint", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("webhook_endpoint_ref", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("webhook_public_key", sa.String(), nullable=True))
    op.execute(
        sa.text(
            "UPDATE provider_account SET status = 'DISABLED' WHERE active = :inactive"
        ).bindparams(inactive=False)
    )

    op.create_table(
        "provider_customer",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("provider_account_id", sa.String(length=36), nullable=False),
        sa.Column("customer_id", sa.String(length=36), nullable=False),
        sa.Column("provider_customer_id", sa.String(length=200), nullable=False),
        sa.Column("handles", sa.JSON(), nullable=False),
        sa.Column("created_at", ramp.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["customer_id"], ["customer.id"]),
        sa.ForeignKeyConstraint(["provider_account_id"], ["provider_account.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("provider_account_id", "customer_id"),
    )
    op.create_index(
        "ix_provider_customer_reference",
        "provider_customer",
        ["provider_account_id", "provider_customer_id"],
        unique=False,
    )

    op.create_table(
        "provider_webhook_event",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("provider_account_id", sa.String(length=36), nullable=False),
        sa.Column("provider_event_id", sa.String(length=200), nullable=False),
        sa.Column("events_encrypted", sa.String(), nullable=False),
        sa.Column("received_at", ramp.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("applied_at", ramp.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.String(length=1000), nullable=True),
        sa.ForeignKeyConstraint(["provider_account_id"], ["provider_account.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("provider_account_id", "provider_event_id"),
    )
    with op.batch_alter_table("provider_webhook_event", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_provider_webhook_event_applied_at"), ["applied_at"], unique=False
        )

    with op.batch_alter_table("intent_transaction", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_intent_transaction_provider_reference"),
            ["provider_reference"],
            unique=False,
        )


def downgrade() -> None:
    with op.batch_alter_table("intent_transaction", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_intent_transaction_provider_reference"))
    with op.batch_alter_table("provider_webhook_event", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_provider_webhook_event_applied_at"))
    op.drop_table("provider_webhook_event")
    op.drop_index("ix_provider_customer_reference", table_name="provider_customer")
    op.drop_table("provider_customer")
    with op.batch_alter_table("provider_account", schema=None) as batch_op:
        batch_op.drop_column("webhook_public_key")
        batch_op.drop_column("webhook_endpoint_ref")
        batch_op.drop_column("credentials_hint")
        batch_op.drop_column("status_reason")
        batch_op.drop_column("status")
