"""The bodies of `POST /intent`: with the ids of a registered account pair, or with the
pair itself inline (a one-call intent); both carry the same terms."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field, RootModel, StrictBool, StrictStr
from pydantic.config import JsonDict

from api.schemas.core import CreateExternalAccounts, Identifier, RedirectUrl, RequestBody

# The fields that make a body a one-call intent's (api/intents.py picks the model by them).
INLINE_ACCOUNT_FIELDS = frozenset({"src", "dest", "source", "destination"})
_ACH: JsonDict = {
    "rails": "ACH",
    "currency": "USD",
    "countryCode": "US",
    "institutionName": "JPMorgan Chase Bank",
    "accountIdentifier": {"routingNumber": "021000021", "accountNumber": "000123456789"},
    "beneficiary": {"name": "Alex Morgan", "taxId": "12-3456789"},
}
_WALLET: JsonDict = {
    "address": "0x742d35Cc6634C0532925a3b844Bc454e4438f44e",
    "currency": "USDC_ETHEREUM",
}


class IntentTerms(RequestBody):
    """What every body of `POST /intent` carries besides its accounts."""

    amount: Annotated[
        StrictStr,
        Field(
            min_length=1,
            max_length=64,
            description="Decimal string in the source currency; at most its `decimals` places",
            examples=["100.00"],
        ),
    ]
    provider_id: Identifier | None = Field(
        default=None,
        alias="providerId",
        description="Preferred provider: one of the route's `providerIds` "
        "(GET /currencies/supported); left out, the service picks the first eligible one",
    )
    auto_execute: StrictBool = Field(
        default=False,
        alias="autoExecute",
        description="Create the transaction as soon as the compliance plan completes",
    )
    redirect_url: RedirectUrl | None = Field(
        default=None,
        alias="redirectUrl",
        description="Where to send the customer after onboarding (stored, returned)",
    )
    label: Identifier | None = Field(
        default=None, description="Free text for the project's own reference (stored, returned)"
    )
    onboarding_redirect_url: RedirectUrl | None = Field(
        default=None,
        alias="onboardingRedirectUrl",
        description="Where the hosted onboarding sends the customer once it is done; its "
        "origin must be one of the project's onboarding origins",
    )
    checkout_redirect_url: RedirectUrl | None = Field(
        default=None,
        alias="checkoutRedirectUrl",
        description="Where the hosted onboarding sends the customer after showing the "
        "deposit instructions; its origin must be one of the project's onboarding origins",
    )
    quote_id: Identifier | None = Field(
        default=None,
        alias="quoteId",
        description="A quote of GET /v1/intent/quote for this payment: its provider is used "
        "while the quote is valid (409 QUOTE_EXPIRED after)",
    )


class CreateIntent(IntentTerms):
    """An intent between two accounts registered with POST /customers/external-accounts."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "srcExternalAccountId": "7d0c2c7e-4f51-4a53-9a45-0b8e2f4f6c11",
                    "destExternalAccountId": "0b9f8a66-33d2-4b8e-a5a1-5e7d9c2b1f22",
                    "amount": "100.00",
                }
            ]
        }
    )

    src_external_account_id: Identifier = Field(
        alias="srcExternalAccountId",
        description="Id of the source external account (`source.id` of the registered pair)",
    )
    dest_external_account_id: Identifier = Field(
        alias="destExternalAccountId",
        description="Id of the destination external account (`destination.id` of the pair)",
    )


class CreateIntentWithAccounts(CreateExternalAccounts, IntentTerms):
    """A one-call intent: the account pair inline, in the body of POST
    /customers/external-accounts (`src`, `dest`, `source`, `destination`), registered as
    that call registers it (the same schemas; errors point into `/source` and
    `/destination`) and reused by a retry with the same Idempotency-Key."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "src": "USD",
                    "dest": "USDC_ETHEREUM",
                    "source": _ACH,
                    "destination": _WALLET,
                    "amount": "100.00",
                    "autoExecute": True,
                }
            ]
        }
    )


def _exactly_one(schema: dict[str, Any]) -> None:
    # The two bodies exclude each other (no extra fields in either): exactly one fits.
    schema["oneOf"] = schema.pop("anyOf")


class CreateIntentBody(RootModel[CreateIntent | CreateIntentWithAccounts]):
    """The body of POST /intent: the ids of a registered account pair (CreateIntent), or
    the pair itself inline (CreateIntentWithAccounts)."""

    model_config = ConfigDict(json_schema_extra=_exactly_one)
