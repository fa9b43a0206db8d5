"""The interface every provider adapter implements."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from ramp.catalog import MovementType, Rail
from ramp.intents.models import Receipt, TransactionContext
from ramp.money import Amount


class AccountDetails(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    currency_code: str
    rail: Rail | None = None
    country_code: str | None = None
    # The account metadata as registered: a real provider needs it to pay out.
    metadata: dict[str, Any]


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


class ProviderTransaction(BaseModel):
    """What a provider answers to an order: its reference, and where the money goes."""

    model_config = ConfigDict(extra="forbid")

    provider_reference: str
    context: TransactionContext
    # Set by the create_transaction activity from a quote (not by adapters).
    receipt: Receipt | None = None


class TransactionCancellation(BaseModel):
    """Input of `cancel_transaction`: the order to void at the provider."""

    model_config = ConfigDict(extra="forbid")

    transaction_id: str
    provider_code: str
    provider_reference: str
    reason: str


class ProviderAdapter(Protocol):
    async def create_transaction(self, order: TransactionOrder) -> ProviderTransaction:
        """Places the order; returns the provider's reference and the deposit instructions.

        Raises `ProviderFailed` (ramp.errors) when the provider refuses the order, which
        is not retried; any other exception is retried.
        """
        ...

    async def cancel_transaction(self, cancellation: TransactionCancellation) -> None:
        """Voids an order whose deposit never came, so its instructions stop working.

        Raises `ProviderFailed` with the code `ORDER_NOT_CANCELLABLE` when the
        provider already holds the deposit (its event is on the way); anything else is
        retried.
        """
        ...


class ProviderAdapters:
    """The adapter of each provider, by provider code."""

    def __init__(self, adapters: Mapping[str, ProviderAdapter]) -> None:
        self._adapters = dict(adapters)

    def for_provider(self, code: str) -> ProviderAdapter:
        try:
            return self._adapters[code]
        except KeyError:
            raise LookupError(f"no adapter for provider {code}") from None
