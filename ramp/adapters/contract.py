"""The connector contract: what every provider implements, in our words.

After Juspay Hyperswitch's connectors: one connector per provider, one method per flow,
provider-neutral inputs and outputs, and a small set of provider-neutral errors. The
sandbox's mock providers are connectors like any other (ramp/adapters/sandbox/, as
Hyperswitch keeps a dummy connector), with a `ProviderContext` that carries no
credentials. The activity boundary (activities/provider_errors.py) turns these errors
into Temporal's; nothing here or below it imports temporalio.

Deposit instructions map into the `TransactionContext` of `ramp/intents/models.py`, so
API clients see the same shape whatever the provider.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, SecretStr

# The error family lives in ramp/adapters/errors.py; connectors import it from here.
from ramp.adapters.errors import CredentialsRejected as CredentialsRejected
from ramp.adapters.errors import NotSupported as NotSupported
from ramp.adapters.errors import ProviderError as ProviderError
from ramp.adapters.errors import ProviderOutOfService as ProviderOutOfService
from ramp.adapters.errors import ProviderRefused as ProviderRefused
from ramp.adapters.errors import ProviderUnavailable as ProviderUnavailable
from ramp.adapters.errors import WebhookRejected as WebhookRejected
from ramp.catalog import MovementType, Rail
from ramp.intents.models import TransactionContext
from ramp.intents.states import ProviderEventType, StepOutcome
from ramp.money import Amount, Money

__all__ = [
    "AccountDetails",
    "AmountUnit",
    "CallMode",
    "ComplianceHandoff",
    "ComplianceMode",
    "Connector",
    "CredentialsRejected",
    "CustomerProfile",
    "DepositMatch",
    "NotSupported",
    "ProviderAccountRef",
    "ProviderComplianceEvent",
    "ProviderContext",
    "ProviderCredentials",
    "ProviderCustomerRef",
    "ProviderError",
    "ProviderEvent",
    "ProviderOutOfService",
    "ProviderQuote",
    "ProviderRefused",
    "ProviderTransfer",
    "ProviderTransferEvent",
    "ProviderTransferStatus",
    "ProviderUnavailable",
    "Quote",
    "QuoteRequest",
    "Quoter",
    "RailQuoteRequest",
    "SignedMessage",
    "SigningRequest",
    "TransactionOrder",
    "WebhookRegistration",
    "WebhookRejected",
]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --- how a connector is called ----------------------------------------------------------


class AmountUnit(StrEnum):
    """The unit a provider's API counts amounts in (Hyperswitch's `CurrencyUnit`):
    `BASE` is the decimal string of the currency's unit (Bridge: "25.00" dollars),
    `MINOR` the integer count of its smallest unit (cents, wei). A connector declares
    it; `TransactionOrder.amount_in` converts, so no caller does."""

    BASE = "BASE"
    MINOR = "MINOR"


class CallMode(StrEnum):
    """How the intent workflow calls a connector, declared by the connector and read
    in one place (workflows/provider_calls.py): `LOCAL` for an in-process provider
    (the sandbox's mocks: a local activity, no round trip through the server), `REMOTE`
    for one across the network (a regular activity on the providers' task queue, with
    long retries and its own timeouts)."""

    LOCAL = "LOCAL"
    REMOTE = "REMOTE"


# --- what is ordered -------------------------------------------------------------------


class AccountDetails(BaseModel):
    """An external account as the provider sees it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    currency_code: str
    rail: Rail | None = None
    country_code: str | None = None
    # The account metadata as registered: a real provider needs it to pay out.
    metadata: dict[str, Any]


class SigningRequest(BaseModel):
    """A message the customer signs with their wallet (EIP-191 `personal_sign`) for a
    provider that takes the wallet's word rather than a deposit (Monerium: linking an
    address to the customer, a redeem order). Shown to the customer exactly as signed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    purpose: str  # LINK_ADDRESS or REDEEM_ORDER
    address: str  # the wallet that must sign
    chain: str | None = None  # the provider's chain name, where it matters
    message: str
    # A signature of this message is refused after this moment (a redeem's timestamp).
    expires_at: datetime | None = None


class SignedMessage(BaseModel):
    """A `SigningRequest`'s message with the wallet's signature (0x-prefixed hex)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    message: str
    signature: str


class TransactionOrder(BaseModel):
    """What the service asks a provider to set up for one intent."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # Our transaction id, sent as the provider's idempotency key: a retried activity
    # must find the order it already placed, never place a second one.
    transaction_id: str
    movement_type: MovementType
    amount: Amount  # in the source's currency
    source: AccountDetails
    destination: AccountDetails
    # The customer's signature of what the provider's `prepare_transfer` asked for
    # (ramp/adapters/capabilities.py): None where none is asked (all but Monerium).
    authorization: SignedMessage | None = None

    @property
    def money(self) -> Money:
        """The amount with its currency (the source's): checked against its decimals."""
        return Money(self.amount, self.source.currency_code)

    def amount_in(self, unit: AmountUnit) -> str:
        """The amount as a provider counting in `unit` writes it."""
        money = self.money
        if unit is AmountUnit.MINOR:
            return str(money.in_smallest_units())
        return money.decimal_string


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
    account, never put in a workflow's history (it may hold decrypted credentials).
    The sandbox's mock providers have none: `ProviderContext.without_credentials`."""

    provider_account_id: str
    credentials: ProviderCredentials = ProviderCredentials(values={})
    # The provider's API host for this account (documented host, or a test override);
    # empty for an in-process provider.
    base_url: str = ""
    # Verification key of the provider's webhooks for this account (Bridge: a PEM
    # public key tied to the webhook endpoint), when the account has one.
    webhook_public_key: str | None = None
    # The secret the provider signs this account's webhooks with, where we chose it
    # (Monerium: Standard Webhooks, `GeneratesWebhookSecret`); stored encrypted.
    webhook_secret: SecretStr | None = None

    @classmethod
    def without_credentials(cls, provider_account_id: str) -> ProviderContext:
        """The context of an in-process provider: an account, no secrets, no host."""
        return cls(provider_account_id=provider_account_id)


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
    # The customer signs `ComplianceHandoff.signing` with their wallet on our hosted page
    # (Monerium: the address link); `SigningConnector.submit_signature` forwards it.
    SIGN = "SIGN"


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
    # What the customer signs, in SIGN mode.
    signing: SigningRequest | None = None


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


class RailQuoteRequest(QuoteRequest):
    """A quote for one corridor of a provider: its direction and its bank rail."""

    movement_type: MovementType
    rail: Rail


class ProviderQuote(Quote):
    """A provider's price: `fee` (the contract's) = network_fee + processing_fee, in the
    source currency; `destination_amount` is what arrives after them."""

    network_fee: Amount
    processing_fee: Amount
    # Destination units per source unit, after the provider's spread.
    exchange_rate: Decimal
    # The price may move until the order is placed (every sandbox quote is indicative).
    indicative: bool = True

    @classmethod
    def from_quote(cls, quote: Quote, exchange_rate: Decimal) -> ProviderQuote:
        return cls(
            **quote.model_dump(),
            network_fee=Decimal(0),
            processing_fee=quote.fee,
            exchange_rate=exchange_rate,
        )


@runtime_checkable
class Quoter(Protocol):
    """The quote flow of one provider account (ramp/quotes/accounts.py wraps a
    connector and its context into one)."""

    async def quote(self, request: RailQuoteRequest) -> ProviderQuote:
        """Raises on failure (any error): the provider is reported unavailable."""
        ...


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


class DepositMatch(_Model):
    """What identifies money that arrived without our reference (Monerium: a SEPA
    payment to the customer's IBAN with another memo): the provider's customer, the
    amount and the payer's account. The relay gives it to the one open on-ramp of that
    customer with that amount from that account, if exactly one."""

    provider_customer_id: str
    amount: Amount
    currency: str
    payer_iban: str | None = None
    # The provider's own id of the payment (Monerium's issue order id): what an
    # operator quotes to refund it when no intent takes it, one report per payment.
    payment_reference: str | None = None


class ProviderTransferEvent(_Model):
    """A verified provider webhook about a transfer."""

    provider_event_id: str
    provider_reference: str
    provider_state: str
    events: tuple[ProviderEventType, ...]  # as in `ProviderTransferStatus`
    reason: str | None = None
    occurred_at: datetime | None = None
    # What the provider says it received with the deposit, where it says (Monerium's
    # issue order): another amount than the order's is unmatched money.
    received_amount: Amount | None = None
    received_currency: str | None = None
    # For money without our reference: how to find its intent otherwise.
    match: DepositMatch | None = None
    # False for an order that pays out (Monerium's redeem): its money is not reported
    # as unmatched money when no intent has it (ramp/provider_webhooks/unmatched.py).
    incoming: bool = True


class ProviderComplianceEvent(_Model):
    """A verified provider webhook about a customer's compliance status."""

    provider_event_id: str
    provider_customer_id: str
    requirement: str
    outcome: StepOutcome | None
    reason: str | None = None
    occurred_at: datetime | None = None


ProviderEvent = ProviderTransferEvent | ProviderComplianceEvent


# --- the protocol ----------------------------------------------------------------------


class Connector(Protocol):
    """One provider (the sandbox's mocks included). Every method is idempotent on our ids."""

    code: str
    # How the workflow calls it (local or regular activities) and the unit its API
    # counts amounts in: read from here, never decided by a caller.
    call_mode: CallMode
    amount_unit: AmountUnit
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
