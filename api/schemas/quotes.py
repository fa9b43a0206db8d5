"""The response of `GET /v1/intent/quote` (camelCase on the wire)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import Field, PlainSerializer, WithJsonSchema

from api.schemas.core import Resource
from ramp.catalog import MovementType, Rail
from ramp.money import Amount, format_amount
from ramp.timestamps import Timestamp

Rate = Annotated[
    Decimal,
    PlainSerializer(format_amount, return_type=str),
    WithJsonSchema({"type": "string", "examples": ["0.995"]}),
]


class QuoteFeesResource(Resource):
    currency_code: str = Field(alias="currencyCode")
    network_fee: Amount = Field(alias="networkFee")
    processing_fee: Amount = Field(alias="processingFee")
    partner_fee: Amount = Field(alias="partnerFee")
    total_fee: Amount = Field(alias="totalFee")


class QuoteResource(Resource):
    provider_id: str = Field(alias="providerId")
    provider_code: str = Field(alias="providerCode")
    type: MovementType
    rail: Rail
    src_currency_code: str = Field(alias="srcCurrencyCode")
    dest_currency_code: str = Field(alias="destCurrencyCode")
    src_amount: Amount = Field(alias="srcAmount")
    dest_amount: Amount = Field(alias="destAmount")
    exchange_rate: Rate = Field(
        alias="exchangeRate", description="Destination units per source unit"
    )
    fees: QuoteFeesResource
    expires_at: Timestamp | None = Field(alias="expiresAt")
    has_indicative_price: bool = Field(alias="hasIndicativePrice")
    quote_id: str | None = Field(
        default=None,
        alias="quoteId",
        description="Held until expiresAt: POST /intent with it uses this provider (409 "
        "QUOTE_EXPIRED after)",
    )
    selected: bool = Field(
        default=False,
        description="The quote POST /intent without providerId would pick, as the project "
        "routes (FIRST_ELIGIBLE or BEST_PRICE); quotes come in that ranking",
    )
    provider_status: Literal["HEALTHY", "DEGRADED", "DOWN"] = Field(
        default="HEALTHY",
        alias="providerStatus",
        description="Health of the project's account at this provider (DOWN: not routed)",
    )


class UnavailableQuoteResource(Resource):
    provider_id: str = Field(alias="providerId")
    provider_code: str = Field(alias="providerCode")
    rail: Rail
    reason: str = Field(
        description="TIMEOUT, PROVIDER_ERROR, NOT_SUPPORTED, AMOUNT_OUT_OF_RANGE or "
        "AMOUNT_TOO_SMALL"
    )
    message: str


class QuotesResource(Resource):
    quotes: list[QuoteResource]
    unavailable: list[UnavailableQuoteResource]
