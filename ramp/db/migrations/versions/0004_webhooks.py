"""webhooks: endpoints, events, deliveries, attempts; rotated client secrets

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 11:18:46.132944
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import ramp.db.types

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "webhook_endpoint",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=36), nullable=False),
        sa.Column("url", sa.String(length=2000), nullable=False),
        sa.Column("event_types", sa.JSON(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("disabled_reason", sa.String(length=500), nullable=True),
        sa.Column("description", sa.String(length=200), nullable=True),
        sa.Column("created_at", ramp.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", ramp.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["project.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("webhook_endpoint", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_webhook_endpoint_project_id"), ["project_id"], unique=False
        )

    op.create_table(
        "webhook_event",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=36), nullable=False),
        sa.Column("intent_id", sa.String(length=36), nullable=False),
        sa.Column("event_type", sa.String(length=40), nullable=False),
        sa.Column("body", sa.String(), nullable=False),
        sa.Column("occurred_at", ramp.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["project.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("webhook_event", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_webhook_event_intent_id"), ["intent_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_webhook_event_project_id"), ["project_id"], unique=False
        )

    op.create_table(
        "webhook_delivery",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=36), nullable=False),
        sa.Column("event_id", sa.String(length=36), nullable=False),
        sa.Column("endpoint_id", sa.String(length=36), nullable=False),
        sa.Column("event_type", sa.String(length=40), nullable=False),
        sa.Column("intent_id", sa.String(length=36), nullable=False),
        sa.Column("url", sa.String(length=2000), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempt_count", sa.Integer(), nullable=False),
        sa.Column("max_attempts", sa.Integer(), nullable=False),
        sa.Column("last_status_code", sa.Integer(), nullable=True),
        sa.Column("last_error", sa.String(length=1000), nullable=True),
        sa.Column("next_attempt_at", ramp.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("redelivery_of", sa.String(length=36), nullable=True),
        sa.Column("created_at", ramp.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", ramp.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["webhook_event.id"],
        ),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["project.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("webhook_delivery", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_webhook_delivery_endpoint_id"), ["endpoint_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_webhook_delivery_event_id"), ["event_id"], unique=False
        )
        batch_op.create_index(
            "ix_webhook_delivery_listing", ["project_id", "created_at", "id"], unique=False
        )

    op.create_table(
        "webhook_attempt",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("delivery_id", sa.String(length=36), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("attempted_at", ramp.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=True),
        sa.Column("latency_ms", sa.Integer(), nullable=False),
        sa.Column("error", sa.String(length=1000), nullable=True),
        sa.ForeignKeyConstraint(
            ["delivery_id"],
            ["webhook_delivery.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("webhook_attempt", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_webhook_attempt_delivery_id"), ["delivery_id"], unique=False
        )

    with op.batch_alter_table("project", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("previous_client_secret_hash", sa.String(length=64), nullable=True)
        )
        batch_op.add_column(
            sa.Column("previous_client_secret_encrypted", sa.String(), nullable=True)
        )
        batch_op.add_column(
            sa.Column(
                "previous_secret_expires_at",
                ramp.db.types.UTCDateTime(timezone=True),
                nullable=True,
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("project", schema=None) as batch_op:
        batch_op.drop_column("previous_secret_expires_at")
        batch_op.drop_column("previous_client_secret_encrypted")
        batch_op.drop_column("previous_client_secret_hash")

    with op.batch_alter_table("webhook_attempt", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_webhook_attempt_delivery_id"))

    op.drop_table("webhook_attempt")
    with op.batch_alter_table("webhook_delivery", schema=None) as batch_op:
        batch_op.drop_index("ix_webhook_delivery_listing")
        batch_op.drop_index(batch_op.f("ix_webhook_delivery_event_id"))
        batch_op.drop_index(batch_op.f("ix_webhook_delivery_endpoint_id"))

    op.drop_table("webhook_delivery")
    with op.batch_alter_table("webhook_event", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_webhook_event_project_id"))
        batch_op.drop_index(batch_op.f("ix_webhook_event_intent_id"))

    op.drop_table("webhook_event")
    with op.batch_alter_table("webhook_endpoint", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_webhook_endpoint_project_id"))

    op.drop_table("webhook_endpoint")
