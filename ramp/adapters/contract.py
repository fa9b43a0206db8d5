"""The connector contract: what every production provider implements, in our words.

After Juspay Hyperswitch's connectors: one connector per provider, one method per flow,
provider-neutral inputs and outputs, and a small set of provider-neutral errors. The
activity boundary (next to the workflow) turns these errors into Temporal's; nothing
here or below it imports temporalio.

How it relates to `ramp/adapters/base.py` (which this module leaves untouched for now):
`ProviderAdapter.create_transaction` / `cancel_transaction` are the sandbox's shape of
`Connector.create_transfer` / `cancel_transfer`, without a `ProviderContext` (the mock
providers have no credentials) and raising Temporal's `ApplicationError` directly. The
integration reconciles them: the sandbox adapter becomes one more `Connector`, and the
activities build the `ProviderContext` from the provider account. `AccountDetails` and
`TransactionOrder` are reused as they are (an order is idempotent on its
`transaction_id`), and deposit instructions map into the `TransactionContext` of
`ramp/intents/models.py`, so API clients see the same shape whatever the provider.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from ramp.adapters.base import AccountDetails, TransactionOrder
from ramp.intents.models import TransactionContext
from ramp.intents.states import ProviderEventType, StepOutcome
from ramp.money import Amount

__all__ = [
    "AccountDetails",
    "ComplianceHandoff",
    "ComplianceMode",
    "Connector",
    "CredentialsRejected",
    "CustomerProfile",
    "NotSupported",
    "ProviderAccountRef",
    "ProviderComplianceEvent",
    "ProviderContext",
    "ProviderCredentials",
    "ProviderCustomerRef",
    "ProviderError",
    "ProviderEvent",
    "ProviderRefused",
    "ProviderTransfer",
    "ProviderTransferEvent",
    "ProviderTransferStatus",
    "ProviderUnavailable",
    "Quote",
    "QuoteRequest",
    "TransactionOrder",
    "WebhookRegistration",
    "WebhookRejected",
]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --- context ---------------------------------------------------------------------------


class ProviderCredentials(_Model):
    """Decrypted credentials of one provider account: every value a secret.

    `SecretStr` keeps them out of reprs, logs and tracebacks; a connector reads a value
    with `get_secret_value()` at the moment it builds a request, and nowhere else.
    """

    values: Mapping[str, SecretStr]

    def secret(self, name: str) -> str | None:
        value = self.values.get(name)
        return None if value is None else value.get_secret_value()


class ProviderContext(_Model):
    """Who we are at the provider for one call. Built in the activity from the provider
    account, never put in a workflow's history (it holds decrypted credentials)."""

    provider_account_id: str
    credentials: ProviderCredentials
    # The provider's API host for this account (documented host, or a test override).
    base_url: str
    # Verification key of the provider's webhooks for this account (Bridge: a PEM
    # public key tied to the webhook endpoint), when the account has one.
    webhook_public_key: str | None = None


# --- customers and compliance ----------------------------------------------------------


class CustomerProfile(_Model):
    """What a provider needs to open a customer: our id (its idempotency anchor) and
    the contact details the customer gave us."""

    customer_id: str
    email: str
    full_name: str
    type: str = "individual"  # or "business"


class ProviderCustomerRef(_Model):
    """The provider's customer, remembered per provider account by the caller."""

    provider_customer_id: str
    # Provider-specific handles needed later (Bridge: the KYC link's id).
    handles: Mapping[str, str] = Field(default_factory=dict)


class ComplianceMode(StrEnum):
    FORM = "FORM"  # we collect the data in our hosted onboarding and forward it
    LINK = "LINK"  # the customer completes the provider's hosted flow at `url`
    WAIT = "WAIT"  # the provider decides later; nothing for the customer to do


class ComplianceHandoff(_Model):
    """How one compliance requirement is satisfied at the provider, and where it stands."""

    requirement: str
    mode: ComplianceMode
    url: str | None = None
    # Whether the provider allows the hosted flow inside an iframe (else a new tab).
    embeddable: bool = False
    # The provider's verdict so far: None while nothing is decided.
    outcome: StepOutcome | None = None
    reason: str | None = None


class ProviderAccountRef(_Model):
    """An account registered at the provider (Bridge: an external account id)."""

    provider_account_ref: str


class WebhookRegistration(_Model):
    """Our endpoint as registered at the provider: its id there and the key its
    webhooks are verified with (a public key, or None where the provider has none)."""

    endpoint_ref: str
    public_key: str | None = None


# --- quotes and transfers --------------------------------------------------------------


class QuoteRequest(_Model):
    source_currency: str
    destination_currency: str
    amount: Amount  # in the source currency


class Quote(_Model):
    source_currency: str
    destination_currency: str
    source_amount: Amount
    destination_amount: Amount
    fee: Amount
    expires_at: datetime | None = None


class ProviderTransfer(_Model):
    """The provider's answer to an order: its reference and the payer's instructions."""

    provider_reference: str
    context: TransactionContext


class ProviderTransferStatus(_Model):
    """The poll's answer: the provider's raw state and what it means in our terms.

    `events` is the path of transaction events that leads to the state, in order
    (`payment_processed` implies deposit received, payout sent, settled): a poll or a
    webhook that skipped steps still walks our state machine, whose steps already
    applied are ignored by the workflow. Empty while nothing moved.
    """

    provider_reference: str
    provider_state: str
    events: tuple[ProviderEventType, ...]
    reason: str | None = None
    # True when the order can still be voided (no deposit yet).
    cancellable: bool = False


class ProviderTransferEvent(_Model):
    """A verified provider webhook about a transfer."""

    provider_event_id: str
    provider_reference: str
    provider_state: str
    events: tuple[ProviderEventType, ...]  # as in `ProviderTransferStatus`
    reason: str | None = None
    occurred_at: datetime | None = None


class ProviderComplianceEvent(_Model):
    """A verified provider webhook about a customer's compliance status."""

    provider_event_id: str
    provider_customer_id: str
    requirement: str
    outcome: StepOutcome | None
    reason: str | None = None
    occurred_at: datetime | None = None


ProviderEvent = ProviderTransferEvent | ProviderComplianceEvent


# --- errors ----------------------------------------------------------------------------


class ProviderError(Exception):
    """Base of every provider-neutral error a connector raises."""


class ProviderUnavailable(ProviderError):
    """Retry later: a timeout, a 5xx, a 429. `retry_after` is the provider's hint (s)."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ProviderRefused(ProviderError):
    """The provider refused the request itself: never retried.

    `reason` is in our words (safe to show the project); `fields` maps our JSON
    pointers (into the account metadata or order) to the provider's complaint.
    """

    def __init__(self, reason: str, fields: Mapping[str, str] | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.fields = dict(fields or {})


class CredentialsRejected(ProviderError):
    """The provider does not accept the account's credentials: the account is unhealthy."""


class NotSupported(ProviderError):
    """The provider does not offer this flow (or not in this state of the object)."""


class WebhookRejected(ProviderError):
    """An inbound webhook failed verification (signature, staleness): apply nothing."""


# --- the protocol ----------------------------------------------------------------------


class Connector(Protocol):
    """One production provider. Every method is idempotent on our ids."""

    code: str
    # JSON Schema of the credentials: drives the CLI, the dashboard form and validation.
    credentials_schema: Mapping[str, Any]

    def base_url(self, credentials: Mapping[str, Any]) -> str:
        """The API host the credentials point at (documented host or override)."""
        ...

    async def verify_credentials(self, ctx: ProviderContext) -> None:
        """A cheap authenticated call; raises `CredentialsRejected` when refused."""
        ...

    async def ensure_customer(
        self, ctx: ProviderContext, customer: CustomerProfile
    ) -> ProviderCustomerRef: ...

    async def compliance(
        self, ctx: ProviderContext, customer: ProviderCustomerRef, requirement: str
    ) -> ComplianceHandoff: ...

    async def register_account(
        self, ctx: ProviderContext, customer: ProviderCustomerRef, account: AccountDetails
    ) -> ProviderAccountRef: ...

    async def quote(self, ctx: ProviderContext, request: QuoteRequest) -> Quote:
        """Raises `NotSupported` where the provider has no quotes."""
        ...

    async def create_transfer(
        self,
        ctx: ProviderContext,
        customer: ProviderCustomerRef,
        order: TransactionOrder,
        destination_account: ProviderAccountRef | None = None,
    ) -> ProviderTransfer:
        """Places the order; idempotent on `order.transaction_id`."""
        ...

    async def get_transfer(self, ctx: ProviderContext, ref: str) -> ProviderTransferStatus:
        """The status poll: a lost webhook delays an intent but never strands it."""
        ...

    async def cancel_transfer(self, ctx: ProviderContext, ref: str) -> None:
        """Voids an order awaiting its deposit; `NotSupported` once money moved."""
        ...

    async def register_webhook(self, ctx: ProviderContext, url: str) -> WebhookRegistration:
        """Registers (idempotently) our endpoint for this account's events at the
        provider; `NotSupported` where the provider's API cannot."""
        ...

    def parse_webhook(
        self, ctx: ProviderContext, headers: Mapping[str, str], body: bytes
    ) -> list[ProviderEvent]:
        """Verifies the signature first (`WebhookRejected`), then maps the events."""
        ...
