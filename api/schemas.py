"""Request bodies and response resources of the public API (camelCase on the wire)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, StrictInt, StrictStr


def format_timestamp(value: datetime) -> str:
    """ISO 8601, UTC, millisecond precision: 2026-03-29T10:05:00.000Z."""
    value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


Timestamp = Annotated[datetime, PlainSerializer(format_timestamp, return_type=str)]
AccountTypeName = Literal["BANK_ACCOUNT", "CRYPTO_ADDRESS"]
Identifier = Annotated[StrictStr, Field(min_length=1, max_length=200)]


class RequestBody(BaseModel):
    # Strict: a number is not a string, unknown fields are refused rather than ignored.
    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=False)


class Resource(BaseModel):
    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)


# --- requests ---------------------------------------------------------------------


class CreateCustomer(RequestBody):
    id: Identifier
    subject_token: Annotated[StrictStr, Field(min_length=1, max_length=8192)] | None = None
    metadata: dict[str, Any] | None = None


class WalletChallenge(RequestBody):
    message: Annotated[StrictStr, Field(min_length=1, max_length=4096)]
    signature: Annotated[StrictStr, Field(min_length=1, max_length=1024)]
    ttl_in_seconds: Annotated[StrictInt, Field(ge=60, le=86400)] = Field(
        default=3600, alias="ttlInSeconds"
    )


class CreateExternalAccounts(RequestBody):
    src: Annotated[StrictStr, Field(min_length=1, max_length=32)]
    dest: Annotated[StrictStr, Field(min_length=1, max_length=32)]
    source: dict[str, Any]
    destination: dict[str, Any]


# --- responses --------------------------------------------------------------------


class CustomerResource(Resource):
    id: str
    created_at: Timestamp = Field(alias="createdAt")
    updated_at: Timestamp = Field(alias="updatedAt")
    organization_id: str = Field(alias="organizationId")
    project_id: str = Field(alias="projectId")
    metadata: dict[str, Any] | None
    access_token: str | None


class CurrencyResource(Resource):
    id: str
    code: str
    ticker: str
    name: str
    decimals: int
    type: Literal["FIAT", "CRYPTO"]
    created_at: Timestamp = Field(alias="createdAt")
    updated_at: Timestamp = Field(alias="updatedAt")


class ExternalAccountResource(Resource):
    id: str
    type: AccountTypeName
    label: str | None
    metadata: dict[str, Any]
    currency_id: str = Field(alias="currencyId")
    currency: CurrencyResource
    customer_id: str = Field(alias="customerId")
    created_at: Timestamp = Field(alias="createdAt")
    updated_at: Timestamp = Field(alias="updatedAt")


class ExternalAccountPair(Resource):
    source: ExternalAccountResource
    destination: ExternalAccountResource


class RouteResource(Resource):
    from_code: str = Field(alias="from")
    to_code: str = Field(alias="to")
    provider_ids: list[str] = Field(alias="providerIds")


class AccountSideResource(Resource):
    currencies: list[str]
    account_type: str = Field(alias="accountType")
    rails: list[str]
    countries: list[str]


class AmountLimitResource(Resource):
    currency_code: str = Field(alias="currencyCode")
    minimum: str
    maximum: str


class CorridorResource(Resource):
    type: str
    source: AccountSideResource
    destination: AccountSideResource
    limits: list[AmountLimitResource]


class RequirementResource(Resource):
    code: str
    description: str
    depends_on: list[str] = Field(alias="dependsOn")


class ProviderResource(Resource):
    id: str
    code: str
    name: str
    environment: str
    corridors: list[CorridorResource]
    requirements: list[RequirementResource]


class RequirementsResource(Resource):
    src: str
    dest: str
    source: dict[str, Any]
    destination: dict[str, Any]


class WalletToken(Resource):
    token: str
