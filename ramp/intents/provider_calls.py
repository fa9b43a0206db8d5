"""What the intent workflow asks a real provider's connector, and what comes back.

Inputs name the provider account, never its credentials: the activity decrypts them
(ramp/provider_accounts/service.py), so they never enter a workflow's history. The
error types the activities fail with are `ramp.errors.ProviderCallError`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from ramp.intents.models import TransactionRequest
from ramp.intents.states import ProviderEventType, StepOutcome


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ComplianceQuery(_Model):
    """Where the customer stands at the provider for these requirements; the provider's
    customer is created (once, idempotently) on the first query."""

    provider_account_id: str
    intent_id: str
    customer_id: str
    requirements: list[str]
    # Which connector: an in-process one is called without opening the account.
    # None in histories from before issue 25 (a network connector's).
    provider_code: str | None = None


class Handoff(_Model):
    """How one requirement is satisfied at the provider, and its verdict so far."""

    requirement: str
    mode: str  # FORM, LINK or WAIT (ramp.adapters.contract.ComplianceMode)
    url: str | None = None
    embeddable: bool = False
    outcome: StepOutcome | None = None
    reason: str | None = None


class ComplianceStanding(_Model):
    provider_customer_id: str
    handoffs: list[Handoff]


class TransferOrder(_Model):
    """`TransactionRequest` for a connector: the same order, through an account."""

    provider_account_id: str
    request: TransactionRequest


class TransferQuery(_Model):
    provider_account_id: str
    provider_reference: str
    provider_code: str | None = None  # as in ComplianceQuery


class TransferProgress(_Model):
    """The provider's state of the transfer and our events leading to it, in order."""

    provider_state: str
    events: list[ProviderEventType]
    reason: str | None = None


class TransferVoid(_Model):
    provider_account_id: str
    provider_reference: str
    provider_code: str | None = None  # as in ComplianceQuery


class VoidResult(_Model):
    """`voided` False: the provider holds the deposit (its events follow)."""

    voided: bool
    reason: str | None = None


def provider_event_id(provider_reference: str, event_type: ProviderEventType) -> str:
    """One id per (transfer, event type): the poll and the webhook report the same step
    under the same id, so it applies once."""
    return f"{provider_reference}:{event_type.value}"
