"""The dashboard's tables: who logs in for an organization, their sessions and API
keys, and the audit log (registered with the rest through ramp/db/tables.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index
from sqlmodel import Field, SQLModel

from ramp.db.types import UTCDateTime, utcnow


def _created() -> Any:
    return Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)


class OrgMember(SQLModel, table=True):
    """A person who logs in to the dashboard: one organization per email address."""

    __tablename__ = "org_member"
    id: str = Field(primary_key=True, max_length=36)
    organization_id: str = Field(foreign_key="organization.id", index=True, max_length=36)
    email: str = Field(unique=True, max_length=320)
    role: str = Field(max_length=16)
    # argon2id (PHC string); None until the member followed their setup or invite link.
    password_hash: str | None = Field(default=None, max_length=200)
    # The TOTP seed, encrypted (SecretBox); None while the member has no second factor.
    totp_secret_encrypted: str | None = None
    # No longer written or read (issue 23: an account lock anyone could set off; failed
    # logins are paced per address instead, ramp/organizations/login_throttle.py). Kept
    # until a migration drops them.
    failed_logins: int = 0
    locked_until: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = _created()


class OrgInvite(SQLModel, table=True):
    """A one-time link that lets its holder set a password and join (the owner's setup
    link is one too). Only the token's hash is stored."""

    __tablename__ = "org_invite"
    id: str = Field(primary_key=True, max_length=36)
    organization_id: str = Field(foreign_key="organization.id", index=True, max_length=36)
    email: str = Field(max_length=320)
    role: str = Field(max_length=16)
    token_hash: str = Field(unique=True, max_length=64)
    expires_at: datetime = Field(sa_type=UTCDateTime)
    used_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = _created()


class DashboardSession(SQLModel, table=True):
    """A logged-in browser: the cookie carries a token whose hash is the key here."""

    __tablename__ = "dashboard_session"
    id: str = Field(primary_key=True, max_length=64)
    member_id: str = Field(foreign_key="org_member.id", index=True, max_length=36)
    # The synchronizer token every state-changing form and cookie-authenticated call sends.
    csrf_token: str = Field(max_length=64)
    ip: str = Field(max_length=64)
    created_at: datetime = _created()
    last_seen_at: datetime = _created()
    expires_at: datetime = Field(sa_type=UTCDateTime)


class OrgApiKey(SQLModel, table=True):
    """A key for the admin API (`Authorization: Bearer`), scoped to a role; hash only."""

    __tablename__ = "org_api_key"
    id: str = Field(primary_key=True, max_length=36)
    organization_id: str = Field(foreign_key="organization.id", index=True, max_length=36)
    name: str = Field(max_length=200)
    role: str = Field(max_length=16)
    # The key's first characters, to recognise it in a list.
    prefix: str = Field(max_length=32)
    key_hash: str = Field(unique=True, max_length=64)
    created_at: datetime = _created()
    revoked_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    last_used_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class AuditEvent(SQLModel, table=True):
    """One change made through the dashboard or the admin API: who, when, what, from
    which address. Never a secret."""

    __tablename__ = "audit_event"
    __table_args__ = (Index("ix_audit_event_listing", "organization_id", "created_at", "id"),)
    id: str = Field(primary_key=True, max_length=36)
    organization_id: str = Field(foreign_key="organization.id", max_length=36)
    project_id: str | None = Field(default=None, max_length=36)
    actor: str = Field(max_length=320)
    action: str = Field(max_length=64)
    target: str = Field(max_length=500)
    details: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    ip: str = Field(max_length=64)
    created_at: datetime = _created()


class OrganizationSecurity(SQLModel, table=True):
    """An organization's security settings (a row once an owner changed one)."""

    __tablename__ = "organization_security"
    organization_id: str = Field(foreign_key="organization.id", primary_key=True, max_length=36)
    # Owners must confirm a TOTP code before changing provider credentials.
    totp_required: bool = False
    updated_at: datetime = _created()
