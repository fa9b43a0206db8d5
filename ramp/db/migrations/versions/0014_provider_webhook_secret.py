"""provider webhook secret and authorizations: what Monerium's model needs stored

Revision ID: 0014
Revises: 0012
Create Date: 2026-11-26 03:00:00.000000

Monerium signs its webhooks (Standard Webhooks) with a secret the subscriber sends when
subscribing: we generate it when the account is set and keep it here, encrypted with the
secret box (ramp/db/encrypted.py), never beside the public keys of other providers.
A redeem order is placed only with the customer's signature of it: kept encrypted per
intent in `provider_authorization` until the order is placed.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import ramp.db.types

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("provider_account", schema=None) as batch_op:
        batch_op.add_column(sa.Column("webhook_secret_encrypted", sa.String(), nullable=True))
    op.create_table(
        "provider_authorization",
        sa.Column("intent_id", sa.String(length=36), nullable=False),
        sa.Column("signed_encrypted", sa.String(), nullable=False),
        sa.Column("created_at", ramp.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("intent_id"),
    )


def downgrade() -> None:
    op.drop_table("provider_authorization")
    with op.batch_alter_table("provider_account", schema=None) as batch_op:
        batch_op.drop_column("webhook_secret_encrypted")
