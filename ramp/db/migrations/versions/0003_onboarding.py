"""onboarding: project embedding origins, encrypted onboarding submissions

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29 09:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import ramp.db.types

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("project", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("onboarding_origins", sa.JSON(), nullable=False, server_default="[]")
        )

    op.create_table(
        "onboarding_submission",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("intent_id", sa.String(length=36), nullable=False),
        sa.Column("step_code", sa.String(length=64), nullable=False),
        sa.Column("payload_encrypted", sa.String(), nullable=False),
        sa.Column("created_at", ramp.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["intent_id"],
            ["intent.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("onboarding_submission", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_onboarding_submission_intent_id"), ["intent_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("onboarding_submission", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_onboarding_submission_intent_id"))

    op.drop_table("onboarding_submission")
    with op.batch_alter_table("project", schema=None) as batch_op:
        batch_op.drop_column("onboarding_origins")
