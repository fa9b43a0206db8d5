"""events store: every event is kept, listed per project, filtered by customer

Revision ID: 0015
Revises: 0012
Create Date: 2026-11-26 03:00:00.000000

`webhook_event` held only the events some endpoint subscribed to; from now on it holds
every event the service emits (`GET /v1/events`, issue 29). It gains the event's
customer (a filter of the list), read from the stored body for the rows already there,
and the list's index (project, time, id) in place of the project's alone, which it
covers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BATCH = 1000


def upgrade() -> None:
    with op.batch_alter_table("webhook_event", schema=None) as batch_op:
        batch_op.add_column(sa.Column("customer_id", sa.String(length=36), nullable=True))
        batch_op.drop_index(batch_op.f("ix_webhook_event_project_id"))
        batch_op.create_index(
            "ix_webhook_event_listing", ["project_id", "occurred_at", "id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_webhook_event_customer_id"), ["customer_id"], unique=False
        )
    _backfill_customers()


def _backfill_customers() -> None:
    """Each stored event's `data.customerId`, in batches (the bodies are JSON text)."""
    bind = op.get_bind()
    events = sa.table(
        "webhook_event",
        sa.column("id", sa.String),
        sa.column("body", sa.String),
        sa.column("customer_id", sa.String),
    )
    last = ""
    while True:
        rows = bind.execute(
            sa.select(events.c.id, events.c.body)
            .where(events.c.id > last, events.c.customer_id.is_(None))
            .order_by(events.c.id)
            .limit(_BATCH)
        ).all()
        if not rows:
            return
        last = rows[-1][0]
        updates = []
        for id_, body in rows:
            try:
                customer = json.loads(body).get("data", {}).get("customerId")
            except (ValueError, AttributeError):
                customer = None
            if isinstance(customer, str) and len(customer) <= 36:
                updates.append({"event_id": id_, "customer": customer})
        if updates:
            bind.execute(
                events.update()
                .where(events.c.id == sa.bindparam("event_id"))
                .values(customer_id=sa.bindparam("customer")),
                updates,
            )


def downgrade() -> None:
    with op.batch_alter_table("webhook_event", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_webhook_event_customer_id"))
        batch_op.drop_index("ix_webhook_event_listing")
        batch_op.create_index(
            batch_op.f("ix_webhook_event_project_id"), ["project_id"], unique=False
        )
        batch_op.drop_column("customer_id")
