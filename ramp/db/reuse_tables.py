"""Compliance data asked once (issue 27): what a customer gave one provider, kept to
fill the next provider's forms, and the customer's consent to share it, per pair of
provider accounts (registered with the rest through ramp/db/tables.py).

The fields are personal data: encrypted at rest (`EncryptedJSON`), never logged. The
consent names only the field paths shared, never their values.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column
from sqlmodel import Field, SQLModel

from ramp.db.encrypted import EncryptedJSON
from ramp.db.types import UTCDateTime


class ComplianceRecord(SQLModel, table=True):
    """What the customer gave for one requirement at one provider account: the fields of
    our hosted form (or what the provider's own flow collected and gives back), in the
    form's vocabulary (ramp/onboarding/forms.py)."""

    __tablename__ = "compliance_record"
    customer_id: str = Field(primary_key=True, foreign_key="customer.id", max_length=36)
    provider_account_id: str = Field(
        primary_key=True, foreign_key="provider_account.id", max_length=36
    )
    requirement_code: str = Field(primary_key=True, max_length=64)
    provider_code: str = Field(max_length=64)
    # Where the fields came from: ONBOARDING (our hosted page) or PROVIDER (read back
    # from the provider once it verified the customer, e.g. Bridge's customer object).
    origin: str = Field(max_length=16)
    fields: dict[str, Any] = Field(
        sa_column=Column("fields_encrypted", EncryptedJSON, nullable=False)
    )
    recorded_at: datetime = Field(sa_type=UTCDateTime)


class ComplianceConsent(SQLModel, table=True):
    """The customer's answer to "share what you gave <source> with <target>?": asked
    once per pair of provider accounts; `granted` false is a refusal, also kept so the
    question is not asked again."""

    __tablename__ = "compliance_consent"
    customer_id: str = Field(primary_key=True, foreign_key="customer.id", max_length=36)
    source_provider_account_id: str = Field(
        primary_key=True, foreign_key="provider_account.id", max_length=36
    )
    target_provider_account_id: str = Field(
        primary_key=True, foreign_key="provider_account.id", max_length=36
    )
    granted: bool
    # The field paths the answer covered (names only, no values), e.g. "address.city".
    fields: list[str] = Field(sa_column=Column(JSON, nullable=False))
    decided_at: datetime = Field(sa_type=UTCDateTime)
