"""compliance data asked once: what a customer gave a provider, and consent to share it

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-26 06:00:00.000000

Two new tables (issue 27, "compliance data asked once"); no existing row changes.
`compliance_record` keeps, per customer, provider account and requirement, the fields
the customer gave (encrypted, `fields_encrypted`); `compliance_consent` the customer's
answer to sharing one provider account's fields with another, with when.

The tables depend on nothing of 0017 (provider account names) or 0018 (events without
an intent); it follows them only to keep one line of revisions.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import ramp.db.types

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _when(name: str) -> sa.Column[object]:
    return sa.Column(name, ramp.db.types.UTCDateTime(timezone=True), nullable=False)


def upgrade() -> None:
    op.create_table(
        "compliance_record",
        sa.Column("customer_id", sa.String(length=36), nullable=False),
        sa.Column("provider_account_id", sa.String(length=36), nullable=False),
        sa.Column("requirement_code", sa.String(length=64), nullable=False),
        sa.Column("provider_code", sa.String(length=64), nullable=False),
        sa.Column("origin", sa.String(length=16), nullable=False),
        sa.Column("fields_encrypted", sa.Text(), nullable=False),
        _when("recorded_at"),
        sa.ForeignKeyConstraint(["customer_id"], ["customer.id"]),
        sa.ForeignKeyConstraint(["provider_account_id"], ["provider_account.id"]),
        sa.PrimaryKeyConstraint("customer_id", "provider_account_id", "requirement_code"),
    )
    op.create_table(
        "compliance_consent",
        sa.Column("customer_id", sa.String(length=36), nullable=False),
        sa.Column("source_provider_account_id", sa.String(length=36), nullable=False),
        sa.Column("target_provider_account_id", sa.String(length=36), nullable=False),
        sa.Column("granted", sa.Boolean(), nullable=False),
        sa.Column("fields", sa.JSON(), nullable=False),
        _when("decided_at"),
        sa.ForeignKeyConstraint(["customer_id"], ["customer.id"]),
        sa.ForeignKeyConstraint(["source_provider_account_id"], ["provider_account.id"]),
        sa.ForeignKeyConstraint(["target_provider_account_id"], ["provider_account.id"]),
        sa.PrimaryKeyConstraint(
            "customer_id", "source_provider_account_id", "target_provider_account_id"
        ),
    )


def downgrade() -> None:
    op.drop_table("compliance_consent")
    op.drop_table("compliance_record")
