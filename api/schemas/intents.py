"""The bodies of `POST /intent`: with the ids of a registered account pair, or with the
pair itself inline (a one-call intent); both carry the same terms."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field, RootModel, StrictBool, StrictStr

from api.schemas.core import CreateExternalAccounts, Identifier, RedirectUrl, RequestBody

# The fields that make a body a one-call intent's (api/intents.py picks the model by them).
INLINE_ACCOUNT_FIELDS = frozenset({"src", "dest", "source", "destination"})


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


class CreateIntent(IntentTerms):
    """An intent between two accounts registered with POST /customers/external-accounts."""

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


def _exactly_one(schema: dict[str, Any]) -> None:
    # The two bodies exclude each other (no extra fields in either): exactly one fits.
    schema["oneOf"] = schema.pop("anyOf")


class CreateIntentBody(RootModel[CreateIntent | CreateIntentWithAccounts]):
    """The body of POST /intent: the ids of a registered account pair (CreateIntent), or
    the pair itself inline (CreateIntentWithAccounts)."""

    model_config = ConfigDict(json_schema_extra=_exactly_one)
