"""transaction event ids as long as a provider's reference and an event type

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-26 04:45:00.000000

A transaction event's id is the provider's reference of the transfer, a colon and the
event type (`provider_event_id`), so that the poll and the webhook apply a step once.
References hold up to 200 characters (`intent_transaction.provider_reference`), but the
id held 64: Monerium's issue references (`issue:<profile uuid>:<our reference>`) made
76-character ids that PostgreSQL refused (SQLite does not enforce lengths), and the
intent's projection was never written again. 255 holds 200 + 1 + the 32 of a type.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("transaction_event", schema=None) as batch_op:
        batch_op.alter_column("id", existing_type=sa.String(length=64), type_=sa.String(length=255))


def downgrade() -> None:
    with op.batch_alter_table("transaction_event", schema=None) as batch_op:
        batch_op.alter_column("id", existing_type=sa.String(length=255), type_=sa.String(length=64))
