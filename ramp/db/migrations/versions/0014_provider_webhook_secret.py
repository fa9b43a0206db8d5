"""provider webhook secret: the secret we choose for a provider's signed webhooks

Revision ID: 0014
Revises: 0012
Create Date: 2026-11-26 03:00:00.000000

Monerium signs its webhooks (Standard Webhooks) with a secret the subscriber sends when
subscribing: we generate it when the account is set and keep it here, encrypted with the
secret box (ramp/db/encrypted.py), never beside the public keys of other providers.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("provider_account", schema=None) as batch_op:
        batch_op.add_column(sa.Column("webhook_secret_encrypted", sa.String(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("provider_account", schema=None) as batch_op:
        batch_op.drop_column("webhook_secret_encrypted")
