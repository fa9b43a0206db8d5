"""Routing's tables (issue 26): each provider account's health, the project's routing
strategy, held quotes, the sandbox's provider behaviours, and the partner fee that
quotes and rankings include (registered with the rest through ramp/db/tables.py)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlmodel import Field, SQLModel

from ramp.db.types import ExactAmount, UTCDateTime


class ProviderAccountHealth(SQLModel, table=True):
    """A provider account's health, computed from its own calls (ramp/routing/health.py)
    and shared by every API and worker process. No row: HEALTHY, no failure seen."""

    __tablename__ = "provider_account_health"
    provider_account_id: str = Field(
        primary_key=True, foreign_key="provider_account.id", max_length=36
    )
    # HEALTHY, DEGRADED or DOWN.
    state: str = Field(max_length=16)
    consecutive_failures: int = 0
    # The last calls, oldest first: "." a call the provider answered, "x" one that failed
    # for the provider's own reasons (the sliding window of the error rate).
    recent_calls: str = Field(max_length=64)
    last_failure: str | None = Field(default=None, max_length=500)
    last_failure_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    # A DOWN account's next probe (half-open): one caller may try it from then.
    probe_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    # Set when a caller claimed the probe: its success (and only a success while
    # probing) brings the account back.
    probing_since: datetime | None = Field(default=None, sa_type=UTCDateTime)
    updated_at: datetime = Field(sa_type=UTCDateTime)


class ProjectRouting(SQLModel, table=True):
    """How a project picks among its eligible providers. No row: FIRST_ELIGIBLE."""

    __tablename__ = "project_routing"
    project_id: str = Field(primary_key=True, foreign_key="project.id", max_length=36)
    strategy: str = Field(max_length=32)
    updated_at: datetime = Field(sa_type=UTCDateTime)


class HeldQuote(SQLModel, table=True):
    """A quote `GET /v1/intent/quote` answered, held until it expires: `POST /intent`
    with its `quoteId` uses that provider at that price."""

    __tablename__ = "held_quote"
    id: str = Field(primary_key=True, max_length=36)
    project_id: str = Field(foreign_key="project.id", index=True, max_length=36)
    provider_code: str = Field(max_length=64)
    rail: str = Field(max_length=16)
    source_currency: str = Field(max_length=32)
    destination_currency: str = Field(max_length=32)
    source_amount: Decimal = Field(sa_type=ExactAmount)
    destination_amount: Decimal = Field(sa_type=ExactAmount)
    expires_at: datetime = Field(sa_type=UTCDateTime, index=True)


class SandboxProviderBehaviour(SQLModel, table=True):
    """How a sandbox project's mock provider behaves (`POST /v1/sandbox/providers/
    {providerId}/behaviour`). No row, or `until` passed: UP."""

    __tablename__ = "sandbox_provider_behaviour"
    provider_account_id: str = Field(
        primary_key=True, foreign_key="provider_account.id", max_length=36
    )
    mode: str = Field(max_length=24)
    until: datetime | None = Field(default=None, sa_type=UTCDateTime)
    updated_at: datetime = Field(sa_type=UTCDateTime)


class PartnerFee(SQLModel, table=True):
    """A project's own fee on every ramp, in basis points of the source amount: shown in
    quotes (`partnerFee`) and recorded on transactions (ramp/quotes/partner_fee.py).
    No row: no fee. A table of its own, so projects written by older code stay valid."""

    __tablename__ = "partner_fee"
    project_id: str = Field(primary_key=True, foreign_key="project.id", max_length=36)
    bps: int
    updated_at: datetime = Field(sa_type=UTCDateTime)
