"""api clients: idempotency records, the project-wide intent search's index, the
project's partner fee, the transaction's receipt, the intent's label and redirects

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23 15:40:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import ramp.db.types

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "idempotency_record",
        sa.Column("scope", sa.String(length=80), nullable=False),
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("locked_until", ramp.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("response_status", sa.Integer(), nullable=True),
        sa.Column("response_encrypted", sa.Text(), nullable=True),
        sa.Column("created_at", ramp.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("scope", "key"),
    )
    with op.batch_alter_table("idempotency_record", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_idempotency_record_created_at"), ["created_at"], unique=False
        )

    op.create_table(
        "partner_fee",
        sa.Column("project_id", sa.String(length=36), nullable=False),
        sa.Column("bps", sa.Integer(), nullable=False),
        sa.Column("updated_at", ramp.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["project_id"], ["project.id"]),
        sa.PrimaryKeyConstraint("project_id"),
    )
    with op.batch_alter_table("intent_transaction", schema=None) as batch_op:
        batch_op.add_column(sa.Column("receipt", sa.JSON(), nullable=True))
    with op.batch_alter_table("intent", schema=None) as batch_op:
        batch_op.add_column(sa.Column("label", sa.String(length=200), nullable=True))
        batch_op.add_column(
            sa.Column("onboarding_redirect_url", sa.String(length=2000), nullable=True)
        )
        batch_op.add_column(
            sa.Column("checkout_redirect_url", sa.String(length=2000), nullable=True)
        )
        batch_op.create_index(
            "ix_intent_project_created", ["project_id", "created_at", "id"], unique=False
        )


def downgrade() -> None:
    op.drop_table("partner_fee")
    with op.batch_alter_table("intent_transaction", schema=None) as batch_op:
        batch_op.drop_column("receipt")
    with op.batch_alter_table("intent", schema=None) as batch_op:
        batch_op.drop_index("ix_intent_project_created")
        batch_op.drop_column("checkout_redirect_url")
        batch_op.drop_column("onboarding_redirect_url")
        batch_op.drop_column("label")
    with op.batch_alter_table("idempotency_record", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_idempotency_record_created_at"))
    op.drop_table("idempotency_record")
