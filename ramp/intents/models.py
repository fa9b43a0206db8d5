"""Inputs, outputs and state of the intent workflow and its activities.

Plain pydantic models, apart from the SQL tables: the workflow imports this module and
never the database. Timestamps are always passed in (the workflow's `now()`), never
defaulted, because a default clock would make replays nondeterministic.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from ramp.catalog import MovementType
from ramp.intents.states import (
    IntentStatus,
    PlanStatus,
    ProviderEventType,
    StepOutcome,
    StepStatus,
    TransactionStatus,
)
from ramp.money import Amount


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- starting an intent -------------------------------------------------------------


class IntentRequest(_Model):
    """What `POST /intent` asked for: the workflow's start input."""

    intent_id: str
    project_id: str
    customer_id: str
    src_account_id: str
    dest_account_id: str
    amount: Amount  # the API already checked its format
    provider_id: str | None = None
    auto_execute: bool = False
    redirect_url: str | None = None
    # The reference's optional fields (issue 17): stored and returned; the redirects are
    # used by the hosted onboarding (ramp/intents/redirects.py).
    label: str | None = None
    onboarding_redirect_url: str | None = None
    checkout_redirect_url: str | None = None
    # A held quote's id (issue 26): select_provider takes its provider while it is valid.
    quote_id: str | None = None
    # Providers a failover moved away from (issue 26): select_provider skips them. Asked
    # by runs from before several accounts per provider; later runs name the accounts.
    excluded_providers: list[str] = Field(default_factory=list)
    # Provider accounts a failover moves away from: select_provider skips them (another
    # account of the same provider stays a candidate).
    excluded_accounts: list[str] = Field(default_factory=list)
    lifetime_seconds: int
    # Hash of the request body: a retry with the same Idempotency-Key must match it.
    fingerprint: str


class RequirementSpec(_Model):
    code: str
    description: str
    depends_on: list[str]
    # Stable id of the provider -> requirement edge of the compliance graph.
    edge_id: str


@dataclass(frozen=True)
class PollSchedule:
    """When the workflow polls a provider while it waits on it: `first` after the
    intent last changed, then doubling up to `maximum` (seconds; the worker's settings
    RAMP_PROVIDER_POLL_FIRST and RAMP_PROVIDER_POLL_MAX)."""

    first: float = 180.0
    maximum: float = 3600.0


class ProviderSelection(_Model):
    """The provider chosen for an intent, and what the workflow needs to know of it."""

    provider_id: str
    provider_code: str
    provider_name: str
    provider_account_id: str
    movement_type: MovementType
    source_currency: str
    destination_currency: str
    requirements: list[RequirementSpec]
    # True for a real provider's connector (production): its calls are regular
    # activities on the providers' task queue, its steps are satisfied at the provider.
    # False in every history recorded before connectors existed.
    connector: bool = False
    # The provider poll's schedule (RAMP_PROVIDER_POLL_FIRST / _MAX), read when the
    # intent opened; the defaults are the constants of every earlier history.
    poll_first_seconds: float = 180.0
    poll_max_seconds: float = 3600.0
    # How the workflow calls the connector (its `call_mode`, ramp.adapters.contract:
    # LOCAL or REMOTE). Empty in histories from before issue 25.
    call_mode: str = ""


class RequirementChecks(_Model):
    intent_id: str
    customer_id: str
    provider_code: str
    amount: Amount
    currency_code: str
    codes: list[str]

    @classmethod
    def of(cls, request: IntentRequest, selection: ProviderSelection) -> RequirementChecks:
        """The checks of `selection`'s requirements for `request`'s customer and amount."""
        return cls(
            intent_id=request.intent_id,
            customer_id=request.customer_id,
            provider_code=selection.provider_code,
            amount=request.amount,
            currency_code=selection.source_currency,
            codes=[r.code for r in selection.requirements],
        )


class CheckResult(_Model):
    code: str
    satisfied: bool
    reason: str | None = None


class CheckResults(_Model):
    results: list[CheckResult]


class CheckedSelection(_Model):
    """`select_and_check_requirements`' answer (patch `lookup-one-activity`): what
    `select_provider` and then `check_requirements` answered as two activities."""

    selection: ProviderSelection
    checks: CheckResults


# --- state ----------------------------------------------------------------------------


class ComplianceStep(_Model):
    id: str
    code: str
    description: str
    depends_on: list[str]
    edge_id: str
    status: StepStatus
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime
    updated_at: datetime


class CompliancePlan(_Model):
    id: str
    status: PlanStatus
    current_step_code: str | None
    steps: list[ComplianceStep]
    created_at: datetime
    updated_at: datetime


class WireModel(BaseModel):
    """What goes to API clients as it is (deposit instructions, webhook events): camelCase."""

    model_config = ConfigDict(
        extra="forbid", alias_generator=to_camel, populate_by_name=True, serialize_by_alias=True
    )


class BankDepositInstructions(WireModel):
    rail: str
    amount: Amount
    currency_code: str
    beneficiary_name: str
    bank_name: str
    # The identifiers of the rail: routing and account number, IBAN and BIC, PIX key...
    account_identifier: dict[str, str]
    # Must be quoted with the payment: it is how the provider matches the deposit.
    reference: str


class CryptoDepositInstructions(WireModel):
    address: str
    currency_code: str
    chain: str
    chain_id: int | None
    amount: Amount
    amount_in_smallest_unit: str
    token_contract: str | None = None
    # On chains that need one (Stellar, XRP Ledger...), what the payer must attach so the
    # provider credits the deposit; null elsewhere. Set by the provider adapter.
    memo: str | None = None
    # Wallet-ready forms (ramp/intents/wallet_ready.py): a payment URI (EIP-681 on EVM
    # chains, BIP-21 on Bitcoin, Solana Pay on Solana) and, for an ERC-20 token, the
    # calldata of `transfer(address,uint256)` to send to `tokenContract`.
    payment_uri: str | None = None
    encoded_data: str | None = None


class DepositInstruction(WireModel):
    type: Literal["BANK", "CRYPTO"]
    encoding: Literal["DISPLAY"] = "DISPLAY"
    instructions: BankDepositInstructions | CryptoDepositInstructions


class TransactionContext(WireModel):
    deposit_instructions: list[DepositInstruction]


class ReceiptFees(WireModel):
    network_fee: Amount
    processing_fee: Amount
    partner_fee: Amount
    total_fee: Amount


class Receipt(WireModel):
    """The price of a transaction as quoted when it was created (ramp/quotes/receipt.py):
    what the customer sends, the fees (in the source currency), what should arrive."""

    initial_amount: Amount
    currency_code: str
    fees: ReceiptFees
    exchange_rate: Amount
    expected_final_amount: Amount
    final_currency_code: str
    # The provider's price may still move (every sandbox quote is indicative).
    indicative: bool = True


class AppliedEvent(_Model):
    """A provider event the workflow applied to the transaction."""

    event_id: str
    type: ProviderEventType
    status_after: TransactionStatus
    reason: str | None = None
    received_at: datetime


class Transaction(_Model):
    id: str
    status: TransactionStatus
    provider_reference: str
    context: TransactionContext
    failure_reason: str | None = None
    created_at: datetime
    updated_at: datetime
    last_activity_at: datetime
    events: list[AppliedEvent] = Field(default_factory=list)
    # The quoted price at creation; None when no quote was to be had (or before it existed).
    receipt: Receipt | None = None


class UnmatchedDeposit(_Model):
    """A deposit the intent could not take (see `IntentState.unmatched_deposit`)."""

    event_id: str
    reason: str
    received_at: datetime


class ProviderMove(_Model):
    """The intent left a provider that failed to create its transaction for reasons of
    its own, for the next eligible one (issue 26)."""

    from_provider_code: str
    from_provider_account_id: str
    to_provider_code: str
    to_provider_account_id: str
    reason: str
    at: datetime


class IntentState(_Model):
    """Everything the workflow knows about its intent; the projection mirrors it."""

    id: str
    project_id: str
    customer_id: str
    src_account_id: str
    dest_account_id: str
    amount: Amount
    currency_code: str
    auto_execute: bool
    redirect_url: str | None
    fingerprint: str
    provider: ProviderSelection
    label: str | None = None
    onboarding_redirect_url: str | None = None
    checkout_redirect_url: str | None = None
    mm_plan_id: str
    status: IntentStatus
    failure_reason: str | None = None
    # True when the plan was not complete at creation: the intent went through the
    # hosted onboarding, so its responses carry `frontendUrl` and `workflowId`.
    onboarding: bool
    plan: CompliancePlan
    transaction: Transaction | None = None
    created_at: datetime
    updated_at: datetime
    expired_at: datetime
    # Grows with every change; the projection ignores a write older than what it holds.
    revision: int = 1
    # The request id of the `POST /intent` call answered as the one that created the
    # intent (the others with its Idempotency-Key are replays); None before any answer
    # and in workflows older than this field. Not projected.
    opened_by: str | None = None
    # Connector intents: the client asked for the transaction (POST .../transaction);
    # the workflow places it with the provider outside any handler.
    execution_requested: bool = False
    # Money the provider received that this intent cannot take (it had expired or was
    # cancelled, or the amount differs): an operator must refund it.
    unmatched_deposit: UnmatchedDeposit | None = None
    # Each move to another provider, and why (issue 26: failover; ramp/intents/failover.py).
    provider_moves: list[ProviderMove] = Field(default_factory=list)


class StepUpdate(_Model):
    """An onboarding outcome for one compliance step (a workflow signal)."""

    step_code: str
    outcome: StepOutcome
    reason: str | None = None


class ProviderEvent(_Model):
    """Progress reported by the provider for the intent's transaction (a workflow signal)."""

    event_id: str
    transaction_id: str
    type: ProviderEventType
    reason: str | None = None
    # The amount the provider received, where it says (a deposit event): a different
    # amount from the order's is an unmatched deposit.
    received_amount: Amount | None = None
    # Its currency, where the provider says; None: the order's.
    received_currency: str | None = None


class TransactionRequest(_Model):
    """Input of `create_transaction`: what the provider adapter is asked to do."""

    transaction_id: str
    intent_id: str
    customer_id: str
    provider_code: str
    movement_type: MovementType
    src_account_id: str
    dest_account_id: str
    amount: Amount
    source_currency: str
    destination_currency: str


class IntentOutcome(_Model):
    """Result of the workflow: the intent's final status (None: the intent was refused)."""

    intent_id: str
    status: IntentStatus | None


# --- hosted onboarding -----------------------------------------------------------------


class StepSubmission(_Model):
    """The customer submitted the current step (the `submit_step` update).

    Only the id of the stored submission: what the customer entered is personal data
    and stays in the database, encrypted, never in a workflow's history.
    """

    step_code: str
    submission_id: str


class SubmissionCheck(_Model):
    """Input of `verify_submission`: which stored submission to verify, for whom."""

    intent_id: str
    customer_id: str
    submission_id: str
    step_code: str
    provider_code: str
    amount: Amount
    currency_code: str


class Verdict(_Model):
    """What verification decided: VERIFIED, REJECTED (with a reason), or SUBMITTED when
    a person must review it (the outcome then arrives later, as a `update_step` signal)."""

    outcome: StepOutcome
    reason: str | None = None


# --- what a provider answered ------------------------------------------------------------


class ProviderTransaction(_Model):
    """What a provider answers to an order: its reference, and where the money goes."""

    provider_reference: str
    context: TransactionContext
    # Set by the create_transaction activity from a quote (not by connectors).
    receipt: Receipt | None = None


class TransactionCancellation(_Model):
    """Input of `cancel_transaction`: the order to void at the provider."""

    transaction_id: str
    provider_code: str
    provider_reference: str
    reason: str
