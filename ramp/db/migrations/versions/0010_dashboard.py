"""dashboard: organization members, invites, sessions, API keys and the audit log

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-23 16:00:00.000000

Projects already belong to an organization (0001); existing ones keep theirs, and an
organization without members is reachable only through `ramp org` until an owner is
invited.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import ramp.db.types

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_UTC = ramp.db.types.UTCDateTime(timezone=True)


def _organization() -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(["organization_id"], ["organization.id"])


def upgrade() -> None:
    op.create_table(
        "org_member",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("organization_id", sa.String(length=36), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("password_hash", sa.String(length=200), nullable=True),
        sa.Column("totp_secret_encrypted", sa.String(), nullable=True),
        sa.Column("failed_logins", sa.Integer(), nullable=False),
        sa.Column("locked_until", _UTC, nullable=True),
        sa.Column("created_at", _UTC, nullable=False),
        _organization(),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("email"),
    )
    op.create_index("ix_org_member_organization_id", "org_member", ["organization_id"])
    op.create_table(
        "org_invite",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("organization_id", sa.String(length=36), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("expires_at", _UTC, nullable=False),
        sa.Column("used_at", _UTC, nullable=True),
        sa.Column("created_at", _UTC, nullable=False),
        _organization(),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_index("ix_org_invite_organization_id", "org_invite", ["organization_id"])
    op.create_table(
        "dashboard_session",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("member_id", sa.String(length=36), nullable=False),
        sa.Column("csrf_token", sa.String(length=64), nullable=False),
        sa.Column("ip", sa.String(length=64), nullable=False),
        sa.Column("created_at", _UTC, nullable=False),
        sa.Column("last_seen_at", _UTC, nullable=False),
        sa.Column("expires_at", _UTC, nullable=False),
        sa.ForeignKeyConstraint(["member_id"], ["org_member.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_dashboard_session_member_id", "dashboard_session", ["member_id"])
    op.create_table(
        "org_api_key",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("organization_id", sa.String(length=36), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("prefix", sa.String(length=32), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", _UTC, nullable=False),
        sa.Column("revoked_at", _UTC, nullable=True),
        sa.Column("last_used_at", _UTC, nullable=True),
        _organization(),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key_hash"),
    )
    op.create_index("ix_org_api_key_organization_id", "org_api_key", ["organization_id"])
    op.create_table(
        "audit_event",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("organization_id", sa.String(length=36), nullable=False),
        sa.Column("project_id", sa.String(length=36), nullable=True),
        sa.Column("actor", sa.String(length=320), nullable=False),
        sa.Column("action", sa.String(length=64), nullable=False),
        sa.Column("target", sa.String(length=500), nullable=False),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.Column("ip", sa.String(length=64), nullable=False),
        sa.Column("created_at", _UTC, nullable=False),
        _organization(),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_audit_event_listing", "audit_event", ["organization_id", "created_at", "id"]
    )

    op.create_table(
        "organization_security",
        sa.Column("organization_id", sa.String(length=36), nullable=False),
        sa.Column("totp_required", sa.Boolean(), nullable=False),
        sa.Column("updated_at", _UTC, nullable=False),
        _organization(),
        sa.PrimaryKeyConstraint("organization_id"),
    )


def downgrade() -> None:
    op.drop_table("organization_security")
    op.drop_table("audit_event")
    op.drop_table("org_api_key")
    op.drop_table("dashboard_session")
    op.drop_table("org_invite")
    op.drop_table("org_member")
