"""The SQL schema: what the service stores. Workflows never import this module."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, Column, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from ramp.db.encrypted import EncryptedJSON
from ramp.db.types import ExactAmount, UTCDateTime, utcnow
from ramp.money import Money


def _created() -> Any:
    return Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)


class Organization(SQLModel, table=True):
    __tablename__ = "organization"
    id: str = Field(primary_key=True, max_length=36)
    name: str = Field(max_length=200)
    created_at: datetime = _created()


class Project(SQLModel, table=True):
    __tablename__ = "project"
    id: str = Field(primary_key=True, max_length=36)
    organization_id: str = Field(foreign_key="organization.id", index=True, max_length=36)
    name: str = Field(max_length=200)
    environment: str = Field(max_length=16)
    client_id: str = Field(unique=True, max_length=64)
    # SHA-256 of the secret: what authentication compares against.
    client_secret_hash: str = Field(max_length=64)
    # The secret itself, encrypted: webhook signing needs it back (HMAC keyed with it).
    client_secret_encrypted: str
    # The secret a rotation replaced: still accepted, and still signing webhooks, until
    # `previous_secret_expires_at` (the grace period).
    previous_client_secret_hash: str | None = Field(default=None, max_length=64)
    previous_client_secret_encrypted: str | None = None
    previous_secret_expires_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    # Origins (scheme://host[:port]) allowed to embed the hosted onboarding page.
    onboarding_origins: list[str] = Field(
        default_factory=list,
        sa_column=Column(JSON, nullable=False, server_default="[]"),
    )
    created_at: datetime = _created()
    updated_at: datetime = _created()


class OnboardingSubmission(SQLModel, table=True):
    """What a customer submitted for one onboarding step, encrypted (PII).

    Workflows only ever see the id: the payload stays out of Temporal histories.
    """

    __tablename__ = "onboarding_submission"
    id: str = Field(primary_key=True, max_length=36)
    intent_id: str = Field(foreign_key="intent.id", index=True, max_length=36)
    step_code: str = Field(max_length=64)
    # SecretBox ciphertext of the validated submission (JSON).
    payload_encrypted: str
    created_at: datetime = _created()


class OnboardingVerdict(SQLModel, table=True):
    """What stays of a submission once its retention period is over: the verdict, when
    and on what it was given, and no personal data (ramp/onboarding/retention.py)."""

    __tablename__ = "onboarding_verdict"
    submission_id: str = Field(primary_key=True, max_length=36)
    intent_id: str = Field(foreign_key="intent.id", index=True, max_length=36)
    customer_id: str = Field(max_length=36, index=True)
    provider_code: str = Field(max_length=64)
    # The requirement the submission answered (the compliance step's code).
    step_code: str = Field(max_length=64)
    # VERIFIED, REJECTED, or UNDECIDED (the intent ended before a verdict).
    verdict: str = Field(max_length=16)
    submitted_at: datetime = Field(sa_type=UTCDateTime)
    decided_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    # Keyed hash (SecretBox.keyed_hash) of the submission as stored: shows that a copy
    # kept elsewhere (the provider's, say) is what was verified, and reveals nothing.
    content_hash: str = Field(max_length=64)
    purged_at: datetime = Field(sa_type=UTCDateTime)


class TrustedIssuer(SQLModel, table=True):
    """An OIDC issuer whose ID tokens a project accepts as `subject_token`."""

    __tablename__ = "trusted_issuer"
    __table_args__ = (UniqueConstraint("project_id", "issuer"),)
    id: str = Field(primary_key=True, max_length=36)
    project_id: str = Field(foreign_key="project.id", index=True, max_length=36)
    issuer: str = Field(max_length=500)
    audiences: list[str] = Field(sa_column=Column(JSON, nullable=False))
    jwks_url: str = Field(max_length=1000)
    created_at: datetime = _created()


_ACCOUNT_KEY, _DEFAULT_NAME = ("project_id", "provider_code", "name"), {"server_default": "default"}


class ProviderAccount(SQLModel, table=True):
    """A provider a project routes through, with its credentials (encrypted)."""

    __tablename__ = "provider_account"
    __table_args__ = (UniqueConstraint(*_ACCOUNT_KEY, name="uq_provider_account_name"),)
    id: str = Field(primary_key=True, max_length=36)
    project_id: str = Field(foreign_key="project.id", index=True, max_length=36)
    provider_code: str = Field(max_length=64)
    # Several per provider (issue 26): its name there, its priority (lower routes first).
    name: str = Field(default="default", max_length=64, sa_column_kwargs=_DEFAULT_NAME)
    priority: int = Field(default=100, sa_column_kwargs={"server_default": "100"})
    # Mock providers of the sandbox need none. A real provider's: a SecretBox ciphertext
    # bound to project and provider (provider_accounts/credentials.py), never returned.
    credentials_encrypted: str | None = None
    # False once DISABLED; routing also requires `status` HEALTHY.
    active: bool = True
    # HEALTHY, UNHEALTHY (the provider refused the credentials), DISABLED (by the owner).
    status: str = Field(
        default="HEALTHY", max_length=16, sa_column_kwargs={"server_default": "HEALTHY"}
    )
    status_reason: str | None = Field(default=None, max_length=500)
    # A masked hint of the credentials ("sk-t…1234"), for the owner to recognise them.
    credentials_hint: str | None = Field(default=None, max_length=64)
    # Our endpoint as registered at the provider (its id there) and the key the
    # provider signs its webhooks with (a public key: not a secret).
    webhook_endpoint_ref: str | None = Field(default=None, max_length=200)
    webhook_public_key: str | None = None
    # The secret the provider signs webhooks with where we chose it (Monerium): a
    # SecretBox ciphertext, bound to this account (ramp/provider_accounts/credentials.py).
    webhook_secret_encrypted: str | None = None
    created_at: datetime = _created()
    updated_at: datetime = _created()


class ProviderCustomer(SQLModel, table=True):
    """Our customer's counterpart at a provider, per provider account (created once)."""

    __tablename__ = "provider_customer"
    __table_args__ = (
        UniqueConstraint("provider_account_id", "customer_id"),
        Index("ix_provider_customer_reference", "provider_account_id", "provider_customer_id"),
    )
    id: str = Field(primary_key=True, max_length=36)
    provider_account_id: str = Field(foreign_key="provider_account.id", max_length=36)
    customer_id: str = Field(foreign_key="customer.id", max_length=36)
    provider_customer_id: str = Field(max_length=200)
    # Provider-specific handles needed later (Bridge: the KYC link's id).
    handles: dict[str, str] = Field(sa_column=Column(JSON, nullable=False))
    created_at: datetime = _created()


class ProviderAuthorization(SQLModel, table=True):
    """The customer's signature of an intent's order, for a provider that places an
    order only with it (Monerium's redeem): read by the order's placement."""

    __tablename__ = "provider_authorization"
    intent_id: str = Field(primary_key=True, max_length=36)
    # A SecretBox ciphertext of {"message", "signature"}, bound to the intent.
    signed_encrypted: str
    created_at: datetime = _created()


class ProviderWebhookEvent(SQLModel, table=True):
    """A verified provider webhook, stored before it is applied (the inbox): its
    provider event id deduplicates, `applied_at` says the workflows were told."""

    __tablename__ = "provider_webhook_event"
    __table_args__ = (UniqueConstraint("provider_account_id", "provider_event_id"),)
    id: str = Field(primary_key=True, max_length=36)
    provider_account_id: str = Field(foreign_key="provider_account.id", max_length=36)
    provider_event_id: str = Field(max_length=200)
    # The mapped events (JSON), encrypted: a KYC event may carry personal data.
    events_encrypted: str
    received_at: datetime = Field(sa_type=UTCDateTime)
    applied_at: datetime | None = Field(default=None, sa_type=UTCDateTime, index=True)
    # When a relay may take it (None once applied); a claim pushes it past its lease and
    # stamps `lease_token`, so relays in several workers never signal it twice.
    due_at: datetime | None = Field(default=None, sa_type=UTCDateTime, index=True)
    lease_token: str | None = Field(default=None, max_length=36)
    attempts: int = 0
    last_error: str | None = Field(default=None, max_length=1000)


class Customer(SQLModel, table=True):
    __tablename__ = "customer"
    __table_args__ = (UniqueConstraint("project_id", "external_id"),)
    id: str = Field(primary_key=True, max_length=36)
    project_id: str = Field(foreign_key="project.id", index=True, max_length=36)
    # The `id` the project gave: its own identifier for this customer.
    external_id: str = Field(max_length=200)
    # `metadata` is taken by SQLModel itself, hence the attribute name. Free-form from
    # the project, so possibly personal data (names, emails): stored encrypted.
    customer_metadata: dict[str, Any] | None = Field(
        default=None, sa_column=Column("metadata_encrypted", EncryptedJSON, nullable=True)
    )
    created_at: datetime = _created()
    updated_at: datetime = _created()


class CustomerIdentity(SQLModel, table=True):
    """A verified identity (OIDC subject or wallet address) linked to a customer."""

    __tablename__ = "customer_identity"
    __table_args__ = (UniqueConstraint("project_id", "issuer", "subject_hash"),)
    id: str = Field(primary_key=True, max_length=36)
    project_id: str = Field(foreign_key="project.id", max_length=36)
    customer_id: str = Field(foreign_key="customer.id", index=True, max_length=36)
    issuer: str = Field(max_length=500)
    # SecretBox.keyed_hash of the subject (a wallet address, an OIDC subject): it is
    # only ever looked up, never shown, so it is not stored at all.
    subject_hash: str = Field(max_length=500)
    created_at: datetime = _created()


class WalletNonce(SQLModel, table=True):
    __tablename__ = "wallet_nonce"
    nonce: str = Field(primary_key=True, max_length=64)
    created_at: datetime = _created()
    expires_at: datetime = Field(sa_type=UTCDateTime, index=True)
    consumed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class ExternalAccount(SQLModel, table=True):
    __tablename__ = "external_account"
    id: str = Field(primary_key=True, max_length=36)
    project_id: str = Field(foreign_key="project.id", max_length=36)
    customer_id: str = Field(foreign_key="customer.id", index=True, max_length=36)
    type: str = Field(max_length=32)
    label: str | None = Field(default=None, max_length=200)
    currency_code: str = Field(max_length=32)
    # Account identifiers (account and routing numbers, IBAN, wallet address), the
    # beneficiary's name, tax id and address: stored encrypted, read back as the dict.
    account_metadata: dict[str, Any] = Field(
        sa_column=Column("metadata_encrypted", EncryptedJSON, nullable=False)
    )
    created_at: datetime = _created()
    updated_at: datetime = _created()


# --- intents: the projection the API reads; the workflow owns the state ---------------
#
# Rows are written only by `activities.intents.IntentActivities.record_intent`, from the
# workflow's state. Classes are named `...Row` where a workflow model of the same name
# exists (ramp/intents/models.py).


class IntentRow(SQLModel, table=True):
    __tablename__ = "intent"
    __table_args__ = (
        Index("ix_intent_customer_created", "customer_id", "created_at", "id"),
        # The project-wide search (ramp/intents/search.py), newest first.
        Index("ix_intent_project_created", "project_id", "created_at", "id"),
    )
    id: str = Field(primary_key=True, max_length=36)
    project_id: str = Field(foreign_key="project.id", index=True, max_length=36)
    customer_id: str = Field(foreign_key="customer.id", max_length=36)
    src_account_id: str = Field(foreign_key="external_account.id", max_length=36)
    dest_account_id: str = Field(foreign_key="external_account.id", max_length=36)
    amount: Decimal = Field(sa_type=ExactAmount, nullable=False)
    currency_code: str = Field(max_length=32)
    status: str = Field(max_length=16)
    failure_reason: str | None = Field(default=None, max_length=1000)
    auto_execute: bool
    redirect_url: str | None = Field(default=None, max_length=2000)
    label: str | None = Field(default=None, max_length=200)
    onboarding_redirect_url: str | None = Field(default=None, max_length=2000)
    checkout_redirect_url: str | None = Field(default=None, max_length=2000)
    onboarding: bool
    fingerprint: str = Field(max_length=64)
    # Money movement plan: the selected provider.
    mm_plan_id: str = Field(max_length=36)
    movement_type: str = Field(max_length=16)
    provider_id: str = Field(max_length=36)
    provider_code: str = Field(max_length=64)
    provider_name: str = Field(max_length=200)
    provider_account_id: str = Field(foreign_key="provider_account.id", max_length=36)
    # Each failover to another provider, and why (issue 26); None while it never moved.
    provider_moves: list[dict[str, Any]] | None = Field(
        default=None, sa_column=Column(JSON, nullable=True)
    )
    # Compliance plan (one per intent).
    plan_id: str = Field(max_length=36)
    plan_status: str = Field(max_length=16)
    current_step_code: str | None = Field(default=None, max_length=64)
    plan_created_at: datetime = Field(sa_type=UTCDateTime)
    plan_updated_at: datetime = Field(sa_type=UTCDateTime)
    created_at: datetime = Field(sa_type=UTCDateTime)
    updated_at: datetime = Field(sa_type=UTCDateTime)
    expired_at: datetime = Field(sa_type=UTCDateTime)
    revision: int

    @property
    def transfer_amount(self) -> Money:
        return Money(self.amount, self.currency_code)


class ComplianceStepRow(SQLModel, table=True):
    __tablename__ = "compliance_step"
    id: str = Field(primary_key=True, max_length=36)
    intent_id: str = Field(foreign_key="intent.id", index=True, max_length=36)
    position: int
    code: str = Field(max_length=64)
    description: str = Field(max_length=500)
    depends_on: list[str] = Field(sa_column=Column(JSON, nullable=False))
    edge_id: str = Field(max_length=36)
    status: str = Field(max_length=16)
    step_metadata: dict[str, Any] = Field(sa_column=Column("metadata", JSON, nullable=False))
    created_at: datetime = Field(sa_type=UTCDateTime)
    updated_at: datetime = Field(sa_type=UTCDateTime)


class TransactionRow(SQLModel, table=True):
    __tablename__ = "intent_transaction"
    id: str = Field(primary_key=True, max_length=36)
    intent_id: str = Field(foreign_key="intent.id", unique=True, max_length=36)
    project_id: str = Field(foreign_key="project.id", index=True, max_length=36)
    status: str = Field(max_length=16)
    provider_code: str = Field(max_length=64)
    # Indexed: a provider's webhook names the transfer by it.
    provider_reference: str = Field(max_length=200, index=True)
    context: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    # The quoted price at creation (ramp/intents/models.py Receipt), or null.
    receipt: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    failure_reason: str | None = Field(default=None, max_length=1000)
    created_at: datetime = Field(sa_type=UTCDateTime)
    updated_at: datetime = Field(sa_type=UTCDateTime)
    last_activity_at: datetime = Field(sa_type=UTCDateTime)


class TransactionEventRow(SQLModel, table=True):
    """A provider event applied to a transaction, for the audit trail."""

    __tablename__ = "transaction_event"
    # `provider_event_id`: the provider's reference (up to 200), a colon, the event type.
    id: str = Field(primary_key=True, max_length=255)
    transaction_id: str = Field(foreign_key="intent_transaction.id", index=True, max_length=36)
    type: str = Field(max_length=32)
    status_after: str = Field(max_length=16)
    reason: str | None = Field(default=None, max_length=1000)
    received_at: datetime = Field(sa_type=UTCDateTime)


class SatisfiedRequirement(SQLModel, table=True):
    """A requirement a customer fulfilled with a provider: later intents skip it."""

    __tablename__ = "satisfied_requirement"
    __table_args__ = (UniqueConstraint("customer_id", "provider_code", "requirement_code"),)
    id: str = Field(primary_key=True, max_length=36)
    customer_id: str = Field(foreign_key="customer.id", max_length=36)
    provider_code: str = Field(max_length=64)
    requirement_code: str = Field(max_length=64)
    satisfied_at: datetime = Field(sa_type=UTCDateTime)
    expires_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    # The intent whose onboarding satisfied it.
    intent_id: str = Field(max_length=36)


# --- webhooks ---------------------------------------------------------------------


class WebhookEndpoint(SQLModel, table=True):
    """Where a project wants to be told about changes, and which events."""

    __tablename__ = "webhook_endpoint"
    id: str = Field(primary_key=True, max_length=36)
    project_id: str = Field(foreign_key="project.id", index=True, max_length=36)
    url: str = Field(max_length=2000)
    event_types: list[str] = Field(sa_column=Column(JSON, nullable=False))
    enabled: bool = True
    # Why it was disabled: by the project, because it answered 410 Gone, or because
    # every attempt failed for 3 days.
    disabled_reason: str | None = Field(default=None, max_length=500)
    description: str | None = Field(default=None, max_length=200)
    # When its current run of failed attempts began (None after any success).
    failing_since: datetime | None = Field(default=None, sa_type=UTCDateTime)
    created_at: datetime = _created()
    updated_at: datetime = _created()


class WebhookEventRow(SQLModel, table=True):
    """An event the service emitted, exactly as a webhook carries it (signed as is): every
    event, subscribed or not, since issue 29 (`GET /v1/events`); before, only those with
    an endpoint to go to."""

    __tablename__ = "webhook_event"
    __table_args__ = (
        # The events list: a project's events, newest first.
        Index("ix_webhook_event_listing", "project_id", "occurred_at", "id"),
    )
    # The event id: derived from the transition, so a retried write finds it here.
    id: str = Field(primary_key=True, max_length=36)
    project_id: str = Field(foreign_key="project.id", max_length=36)
    # None for money no intent matches (a DEPOSIT_UNMATCHED of a provider account).
    intent_id: str | None = Field(default=None, max_length=36, index=True)
    # None for events stored before issue 29 whose body named no customer, and for
    # money no intent matches from a customer we do not know.
    customer_id: str | None = Field(default=None, max_length=36, index=True)
    event_type: str = Field(max_length=40)
    body: str
    occurred_at: datetime = Field(sa_type=UTCDateTime)


class WebhookDelivery(SQLModel, table=True):
    """One event on its way to one endpoint (a redelivery is a delivery of its own)."""

    __tablename__ = "webhook_delivery"
    __table_args__ = (
        Index("ix_webhook_delivery_listing", "project_id", "created_at", "id"),
        # The dispatcher's query: the deliveries due now, oldest first.
        Index("ix_webhook_delivery_due", "due_at"),
    )
    id: str = Field(primary_key=True, max_length=36)
    project_id: str = Field(foreign_key="project.id", max_length=36)
    event_id: str = Field(foreign_key="webhook_event.id", index=True, max_length=36)
    # No foreign key: a delivery outlives the endpoint it went to.
    endpoint_id: str = Field(max_length=36, index=True)
    event_type: str = Field(max_length=40)
    # None for an event about no intent (money no intent matches).
    intent_id: str | None = Field(default=None, max_length=36)
    url: str = Field(max_length=2000)
    status: str = Field(max_length=16)
    attempt_count: int = 0
    max_attempts: int
    last_status_code: int | None = None
    last_error: str | None = Field(default=None, max_length=1000)
    next_attempt_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    redelivery_of: str | None = Field(default=None, max_length=36)
    created_at: datetime = Field(sa_type=UTCDateTime)
    updated_at: datetime = Field(sa_type=UTCDateTime)
    # The dispatcher's bookkeeping (ramp/webhooks/dispatcher.py): when a dispatcher may
    # take the delivery next (None: final, or still owned by a delivery workflow of the
    # previous design), and which claim owns the attempt under way.
    due_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    lease_token: str | None = Field(default=None, max_length=36)


class WebhookAttempt(SQLModel, table=True):
    """One POST of a delivery: when, what came back, how long it took."""

    __tablename__ = "webhook_attempt"
    id: str = Field(primary_key=True, max_length=36)
    delivery_id: str = Field(foreign_key="webhook_delivery.id", index=True, max_length=36)
    number: int
    attempted_at: datetime = Field(sa_type=UTCDateTime)
    status_code: int | None = None
    latency_ms: int
    error: str | None = Field(default=None, max_length=1000)


# --- idempotency (issue 17) ----------------------------------------------------------


class IdempotencyRecord(SQLModel, table=True):
    """A creating POST made with an `Idempotency-Key`: claimed while it runs, then the
    response it got, replayed to every retry with the same key for 24 hours
    (ramp/idempotency/store.py)."""

    __tablename__ = "idempotency_record"
    # `project:<id>` or `customer:<id>`: keys of different callers never meet.
    scope: str = Field(primary_key=True, max_length=80)
    key: str = Field(primary_key=True, max_length=255)
    # SHA-256 of the method, path and canonical body: another body is refused (422).
    fingerprint: str = Field(max_length=64)
    # Until then the request that claimed the key is running; afterwards another may
    # take the claim over (the first one died).
    locked_until: datetime = Field(sa_type=UTCDateTime)
    response_status: int | None = None
    # {"headers": {...}, "body": "..."}: encrypted, a body may hold tokens or account data.
    response: dict[str, Any] | None = Field(
        default=None, sa_column=Column("response_encrypted", EncryptedJSON, nullable=True)
    )
    created_at: datetime = Field(sa_type=UTCDateTime, index=True)


# The dashboard's tables (organizations' members, sessions, keys, audit log) live in a
# module of their own; imported here so that this module still registers every table.
from ramp.db.org_tables import AuditEvent as AuditEvent  # noqa: E402
from ramp.db.org_tables import DashboardSession as DashboardSession  # noqa: E402
from ramp.db.org_tables import OrganizationSecurity as OrganizationSecurity  # noqa: E402
from ramp.db.org_tables import OrgApiKey as OrgApiKey  # noqa: E402
from ramp.db.org_tables import OrgInvite as OrgInvite  # noqa: E402
from ramp.db.org_tables import OrgMember as OrgMember  # noqa: E402
from ramp.db.reuse_tables import ComplianceConsent as ComplianceConsent  # noqa: E402
from ramp.db.reuse_tables import ComplianceRecord as ComplianceRecord  # noqa: E402

# Routing's and pricing's tables: health, strategy, held quotes, sandbox behaviours,
# the partner fee.
from ramp.db.routing_tables import HeldQuote as HeldQuote  # noqa: E402
from ramp.db.routing_tables import PartnerFee as PartnerFee  # noqa: E402
from ramp.db.routing_tables import ProjectRouting as ProjectRouting  # noqa: E402
from ramp.db.routing_tables import ProviderAccountHealth as ProviderAccountHealth  # noqa: E402
from ramp.db.routing_tables import SandboxProviderBehaviour as SandboxProviderBehaviour  # noqa: E402
