"""Value types of the static catalog: currencies, providers, corridors and routes.

Everything here is immutable: the catalog is built once at import time and shared by
every request, so nothing may change it afterwards.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import Decimal
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

# One timestamp for every catalog record: the catalog is code, not data, so its records
# have no meaningful creation time, and a fixed value keeps API responses stable.
CATALOG_TIMESTAMP = datetime(2025, 1, 1, tzinfo=UTC)


def currency_id(code: str) -> str:
    """Stable identifier of a currency: the same code yields the same id everywhere."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "ramp:currency:" + code))


def provider_id(code: str) -> str:
    """Stable identifier of a provider, derived from its code like `currency_id`."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "ramp:provider:" + code))


def compliance_edge_id(provider_code: str, requirement_code: str) -> str:
    """Stable identifier of the edge "this provider requires this requirement"."""
    name = f"ramp:compliance-edge:{provider_code}:{requirement_code}"
    return str(uuid.uuid5(uuid.NAMESPACE_URL, name))


class CurrencyType(StrEnum):
    FIAT = "FIAT"
    CRYPTO = "CRYPTO"


class AccountType(StrEnum):
    BANK_ACCOUNT = "BANK_ACCOUNT"
    CRYPTO_ADDRESS = "CRYPTO_ADDRESS"


class Rail(StrEnum):
    """Bank payment rails. The member order is the order used in schemas and docs."""

    ACH = "ACH"
    WIRE = "WIRE"
    SEPA = "SEPA"
    PIX = "PIX"
    SPEI = "SPEI"
    FPS = "FPS"


class MovementType(StrEnum):
    ONRAMP = "ONRAMP"  # fiat -> crypto
    OFFRAMP = "OFFRAMP"  # crypto -> fiat


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Currency(_Frozen):
    id: str
    code: str
    ticker: str
    name: str
    decimals: int = Field(ge=0, le=18)
    type: CurrencyType
    blockchain: str | None = None
    # EVM chain id; None for fiat and for chains without one (Bitcoin, Solana).
    chain_id: int | None = None
    # Token contract (or mint) for tokens; None for fiat and native coins.
    contract_address: str | None = None
    created_at: datetime = CATALOG_TIMESTAMP
    updated_at: datetime = CATALOG_TIMESTAMP

    @property
    def account_type(self) -> AccountType:
        """The kind of external account that holds this currency."""
        if self.type is CurrencyType.FIAT:
            return AccountType.BANK_ACCOUNT
        return AccountType.CRYPTO_ADDRESS

    @model_validator(mode="after")
    def _check_code(self) -> Currency:
        # The code format is part of the API contract, so a malformed seed entry must not load.
        if self.type is CurrencyType.FIAT:
            if len(self.code) != 3 or not self.code.isalpha() or not self.code.isupper():
                raise ValueError(f"fiat code {self.code!r} is not an ISO 4217 code")
            if self.blockchain is not None or self.chain_id is not None:
                raise ValueError("fiat currencies have no blockchain")
        else:
            if self.blockchain is None:
                raise ValueError("crypto currencies need a blockchain")
            expected = f"{self.ticker.upper()}_{self.blockchain.upper()}"
            if self.code != expected:
                raise ValueError(f"crypto code {self.code!r} should be {expected!r}")
        return self


class ComplianceRequirement(_Frozen):
    code: str
    description: str
    # Codes of requirements of the same provider that must be fulfilled first.
    depends_on: tuple[str, ...] = ()


class AccountSide(_Frozen):
    currencies: tuple[str, ...]
    account_type: AccountType
    rails: tuple[Rail, ...] = ()
    countries: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _check_side(self) -> AccountSide:
        if not self.currencies:
            raise ValueError("an account side needs at least one currency")
        if self.account_type is AccountType.BANK_ACCOUNT:
            if not self.rails or not self.countries:
                raise ValueError("a bank account side needs rails and countries")
            bad = [c for c in self.countries if len(c) != 2 or not c.isalpha() or not c.isupper()]
            if bad:
                raise ValueError(f"countries must be ISO 3166-1 alpha-2 codes: {bad}")
        elif self.rails or self.countries:
            # Crypto addresses are not reached through a bank rail or a country.
            raise ValueError("a crypto address side has no rails or countries")
        return self


class AmountLimits(_Frozen):
    """Per-transfer bounds, in units of the source currency."""

    minimum: Decimal = Field(gt=0)
    maximum: Decimal

    @model_validator(mode="after")
    def _check_bounds(self) -> AmountLimits:
        if self.minimum > self.maximum:
            raise ValueError("minimum exceeds maximum")
        return self


class Corridor(_Frozen):
    """One direction of money movement a provider offers, and its amount limits."""

    type: MovementType
    source: AccountSide
    destination: AccountSide
    # Keyed by source currency code.
    limits: dict[str, AmountLimits]

    @model_validator(mode="after")
    def _check_corridor(self) -> Corridor:
        expected = (
            (AccountType.BANK_ACCOUNT, AccountType.CRYPTO_ADDRESS)
            if self.type is MovementType.ONRAMP
            else (AccountType.CRYPTO_ADDRESS, AccountType.BANK_ACCOUNT)
        )
        if (self.source.account_type, self.destination.account_type) != expected:
            raise ValueError(f"{self.type} corridors go from {expected[0]} to {expected[1]}")
        if set(self.limits) != set(self.source.currencies):
            raise ValueError("limits must cover exactly the source currencies")
        return self


class ExtraFieldName(StrEnum):
    """Provider-specific top-level bank metadata fields (their schemas live in requirements)."""

    BENEFICIARY_ADDRESS = "beneficiaryAddress"
    INTERMEDIARY_BANK = "intermediaryBank"


class ExtraField(_Frozen):
    """A bank metadata field a provider asks for on some rails."""

    name: ExtraFieldName
    rails: tuple[Rail, ...]
    # False: the field is accepted (and checked) on those rails but may be omitted.
    required: bool


class Provider(_Frozen):
    id: str
    code: str
    name: str
    environment: Literal["sandbox", "production"]
    corridors: tuple[Corridor, ...]
    # In a valid fulfilment order: every dependency comes before its dependants.
    requirements: tuple[ComplianceRequirement, ...]
    extra_fields: tuple[ExtraField, ...] = ()

    @model_validator(mode="after")
    def _check_requirements(self) -> Provider:
        # Requiring each dependency to be declared earlier proves the graph acyclic and the
        # tuple a topological order, which is what compliance plans walk through.
        seen: set[str] = set()
        for requirement in self.requirements:
            if requirement.code in seen:
                raise ValueError(f"duplicate requirement {requirement.code}")
            missing = [d for d in requirement.depends_on if d not in seen]
            if missing:
                raise ValueError(
                    f"requirement {requirement.code} depends on {missing}, "
                    "which are not declared before it"
                )
            seen.add(requirement.code)
        return self


class Route(_Frozen):
    from_code: str
    to_code: str
    provider_ids: list[str]
