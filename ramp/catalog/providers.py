"""Provider rosters per environment, and the routes they serve.

The sandbox roster is a set of mock providers whose capabilities deliberately differ
along every eligibility dimension (currency, account type, rail, country, direction), so
integrators can exercise provider selection without real money. The production roster
holds the real providers with a connector (ramp/adapters/registry.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import Decimal

from .models import (
    AccountSide,
    AccountType,
    AmountLimits,
    ComplianceRequirement,
    Corridor,
    ExtraField,
    ExtraFieldName,
    MovementType,
    Provider,
    Rail,
    Route,
    provider_id,
)

_DESCRIPTIONS = {
    "TERMS_OF_SERVICE": "Accept the provider's terms of service",
    "KYC_BASIC": "Verify identity: name, date of birth, address and a government ID",
    "KYC_ENHANCED": "Enhanced due diligence: liveness check and occupation",
    "PROOF_OF_ADDRESS": "Upload a recent utility bill or bank statement",
    "SOURCE_OF_FUNDS": "Declare and evidence the origin of the funds",
}


def _req(code: str, *depends_on: str) -> ComplianceRequirement:
    return ComplianceRequirement(code=code, description=_DESCRIPTIONS[code], depends_on=depends_on)


def _bank(currency: str, rails: Iterable[Rail], countries: Iterable[str]) -> AccountSide:
    return AccountSide(
        currencies=(currency,),
        account_type=AccountType.BANK_ACCOUNT,
        rails=tuple(rails),
        countries=tuple(countries),
    )


def _crypto(*currencies: str) -> AccountSide:
    return AccountSide(currencies=currencies, account_type=AccountType.CRYPTO_ADDRESS)


def _limits(currencies: Iterable[str], minimum: str, maximum: str) -> dict[str, AmountLimits]:
    bounds = AmountLimits(minimum=Decimal(minimum), maximum=Decimal(maximum))
    return dict.fromkeys(currencies, bounds)


def _both_ways(
    bank: AccountSide,
    crypto: AccountSide,
    fiat_limits: tuple[str, str],
    crypto_limits: dict[str, AmountLimits],
) -> tuple[Corridor, Corridor]:
    """An on-ramp and the matching off-ramp between one bank side and one crypto side."""
    return (
        Corridor(
            type=MovementType.ONRAMP,
            source=bank,
            destination=crypto,
            limits=_limits(bank.currencies, *fiat_limits),
        ),
        Corridor(type=MovementType.OFFRAMP, source=crypto, destination=bank, limits=crypto_limits),
    )


def _sandbox(
    code: str,
    name: str,
    corridors: Iterable[Corridor],
    requirements: Iterable[ComplianceRequirement],
    extra_fields: Iterable[ExtraField] = (),
) -> Provider:
    return Provider(
        id=provider_id(code),
        code=code,
        name=name,
        environment="sandbox",
        corridors=tuple(corridors),
        requirements=tuple(requirements),
        extra_fields=tuple(extra_fields),
    )


# USDC_GNOSIS: the reference's headline route (USD and EUR to USDC on Gnosis Chain).
_ATLAS_USDC = ("USDC_ETHEREUM", "USDC_POLYGON", "USDC_BASE", "USDC_GNOSIS", "USDC_SOLANA")
_EURO_SEPA_COUNTRIES = ("DE", "FR", "ES", "IT", "NL", "PT", "IE", "AT", "BE")
_THAMES_CRYPTO = ("USDC_ETHEREUM", "ETH_ETHEREUM", "BTC_BITCOIN")

# US provider: ACH for everyday amounts, WIRE for large ones, both directions.
ATLAS = _sandbox(
    "sandbox_atlas",
    "Atlas Payments (sandbox)",
    (
        *_both_ways(
            _bank("USD", [Rail.ACH], ["US"]),
            _crypto(*_ATLAS_USDC),
            ("10.00", "25000.00"),
            _limits(_ATLAS_USDC, "10", "25000"),
        ),
        *_both_ways(
            _bank("USD", [Rail.WIRE], ["US"]),
            _crypto(*_ATLAS_USDC),
            ("1000.00", "1000000.00"),
            _limits(_ATLAS_USDC, "1000", "1000000"),
        ),
    ),
    (
        _req("TERMS_OF_SERVICE"),
        _req("KYC_BASIC", "TERMS_OF_SERVICE"),
        _req("SOURCE_OF_FUNDS", "KYC_BASIC"),
    ),
    (
        # US wires must carry the beneficiary's address (FinCEN travel rule).
        ExtraField(name=ExtraFieldName.BENEFICIARY_ADDRESS, rails=(Rail.WIRE,), required=True),
        ExtraField(name=ExtraFieldName.INTERMEDIARY_BANK, rails=(Rail.WIRE,), required=False),
    ),
)

# Second US provider: ACH only and on-ramp only, so it competes with Atlas on
# USD -> USDC_ETHEREUM but loses on WIRE and on the way back.
BEACON = _sandbox(
    "sandbox_beacon",
    "Beacon Ramp (sandbox)",
    (
        Corridor(
            type=MovementType.ONRAMP,
            source=_bank("USD", [Rail.ACH], ["US"]),
            destination=_crypto("USDC_ETHEREUM", "BTC_BITCOIN"),
            limits=_limits(["USD"], "20.00", "10000.00"),
        ),
    ),
    (_req("TERMS_OF_SERVICE"), _req("KYC_BASIC", "TERMS_OF_SERVICE")),
)

# Euro-area provider over SEPA.
MERIDIAN = _sandbox(
    "sandbox_meridian",
    "Meridian EU (sandbox)",
    _both_ways(
        _bank("EUR", [Rail.SEPA], _EURO_SEPA_COUNTRIES),
        _crypto("USDC_ETHEREUM", "USDC_GNOSIS", "EURE_GNOSIS"),
        ("5.00", "50000.00"),
        _limits(["USDC_ETHEREUM", "USDC_GNOSIS", "EURE_GNOSIS"], "5", "50000"),
    ),
    (
        _req("TERMS_OF_SERVICE"),
        _req("KYC_BASIC", "TERMS_OF_SERVICE"),
        _req("PROOF_OF_ADDRESS", "KYC_BASIC"),
    ),
)

# Latin America: PIX in Brazil, SPEI in Mexico, each its own corridor so BRL never
# travels over SPEI nor MXN over PIX.
ANDES = _sandbox(
    "sandbox_andes",
    "Andes Pay (sandbox)",
    (
        *_both_ways(
            _bank("BRL", [Rail.PIX], ["BR"]),
            _crypto("USDC_POLYGON", "USDC_BASE"),
            ("50.00", "250000.00"),
            _limits(["USDC_POLYGON", "USDC_BASE"], "10", "50000"),
        ),
        *_both_ways(
            _bank("MXN", [Rail.SPEI], ["MX"]),
            _crypto("USDC_POLYGON", "USDC_BASE"),
            ("200.00", "500000.00"),
            _limits(["USDC_POLYGON", "USDC_BASE"], "10", "25000"),
        ),
    ),
    (
        _req("TERMS_OF_SERVICE"),
        _req("KYC_BASIC", "TERMS_OF_SERVICE"),
        _req("KYC_ENHANCED", "KYC_BASIC"),
    ),
)

# UK provider: GBP over Faster Payments, plus EUR over SEPA for GB, IE and NL, which
# overlaps Meridian on IE/NL and makes the bank country decide on EUR routes.
THAMES = _sandbox(
    "sandbox_thames",
    "Thames Exchange (sandbox)",
    (
        *_both_ways(
            _bank("GBP", [Rail.FPS], ["GB"]),
            _crypto(*_THAMES_CRYPTO),
            ("10.00", "100000.00"),
            {
                **_limits(["USDC_ETHEREUM"], "10", "100000"),
                **_limits(["ETH_ETHEREUM"], "0.005", "50"),
                **_limits(["BTC_BITCOIN"], "0.0002", "2.5"),
            },
        ),
        *_both_ways(
            _bank("EUR", [Rail.SEPA], ["GB", "IE", "NL"]),
            _crypto("USDC_ETHEREUM"),
            ("10.00", "100000.00"),
            _limits(["USDC_ETHEREUM"], "10", "100000"),
        ),
    ),
    (
        # A diamond rather than a chain: address proof does not wait for identity checks.
        _req("TERMS_OF_SERVICE"),
        _req("KYC_BASIC", "TERMS_OF_SERVICE"),
        _req("PROOF_OF_ADDRESS", "TERMS_OF_SERVICE"),
        _req("KYC_ENHANCED", "KYC_BASIC", "PROOF_OF_ADDRESS"),
    ),
)

SANDBOX_PROVIDERS: tuple[Provider, ...] = (ATLAS, BEACON, MERIDIAN, ANDES, THAMES)

# --- production ----------------------------------------------------------------------
# Bridge (apidocs.bridge.xyz: fiat payment methods, payment routes, transaction
# minimums; docs/providers.md): USD over ACH and wire, EUR over SEPA, MXN over SPEI,
# to and from the stablecoins of our currency catalog Bridge serves with that fiat.
# Minimums are Bridge's (1 unit; MXN 50); Bridge states no maximum, so ours is a
# sanity bound. Bridge's KYC link covers identity and its terms of service.
_BRIDGE_USD_CRYPTO = (
    "USDC_ETHEREUM",
    "USDC_POLYGON",
    "USDC_BASE",
    "USDC_SOLANA",
    "USDT_ETHEREUM",
    "EURC_SOLANA",
)
_BRIDGE_EUR_CRYPTO = ("USDC_ETHEREUM", "USDC_POLYGON", "USDC_BASE", "USDC_SOLANA", "EURC_SOLANA")
_BRIDGE_MXN_CRYPTO = ("USDC_ETHEREUM", "USDC_POLYGON", "USDC_BASE", "USDC_SOLANA")
_SEPA_COUNTRIES = (
    *("AT", "BE", "CY", "DE", "EE", "ES", "FI", "FR", "GR", "HR", "IE", "IT", "LT", "LU"),
    *("LV", "MT", "NL", "PT", "SI", "SK"),
)
_BRIDGE_MAX = "10000000"

BRIDGE = Provider(
    id=provider_id("BRIDGE"),
    code="BRIDGE",
    name="Bridge",
    environment="production",
    corridors=(
        *_both_ways(
            _bank("USD", [Rail.ACH, Rail.WIRE], ["US"]),
            _crypto(*_BRIDGE_USD_CRYPTO),
            ("1.00", _BRIDGE_MAX),
            _limits(_BRIDGE_USD_CRYPTO, "1", _BRIDGE_MAX),
        ),
        *_both_ways(
            _bank("EUR", [Rail.SEPA], _SEPA_COUNTRIES),
            _crypto(*_BRIDGE_EUR_CRYPTO),
            ("1.00", _BRIDGE_MAX),
            _limits(_BRIDGE_EUR_CRYPTO, "1", _BRIDGE_MAX),
        ),
        *_both_ways(
            _bank("MXN", [Rail.SPEI], ["MX"]),
            _crypto(*_BRIDGE_MXN_CRYPTO),
            ("50.00", _BRIDGE_MAX),
            _limits(_BRIDGE_MXN_CRYPTO, "3", _BRIDGE_MAX),
        ),
    ),
    requirements=(_req("TERMS_OF_SERVICE"), _req("KYC_BASIC", "TERMS_OF_SERVICE")),
    extra_fields=(
        # Bridge's `us` external accounts (off-ramp payouts) carry the owner's address;
        # an on-ramp's paying account needs none, so it is accepted, not required.
        ExtraField(
            name=ExtraFieldName.BENEFICIARY_ADDRESS, rails=(Rail.ACH, Rail.WIRE), required=False
        ),
    ),
)

# Monerium (its OpenAPI document, monerium/js-monorepo packages/openapi/openapi.yml;
# docs/providers.md): EUR over SEPA to and from EURe, minted on a payment to the
# customer's IBAN and burned by a signed redeem order. Of the chains Monerium lists
# (Ethereum, Gnosis, Polygon, Arbitrum, Linea, Base, Noble) the catalog carries EURe on
# every EVM one; Noble's addresses are not EVM addresses, which Monerium's API takes
# only. Orders are in whole cents and need a supporting document from 15,000
# EUR, which we do not upload: the maximum stays below it. Monerium's profile decides
# identity (details and ID document) and proof of residency, forwarded from our forms.
_MONERIUM_CRYPTO = (
    "EURE_GNOSIS",
    "EURE_ETHEREUM",
    "EURE_POLYGON",
    "EURE_ARBITRUM",
    "EURE_LINEA",
    "EURE_BASE",
)
_MONERIUM_MAX = "14999.99"

MONERIUM = Provider(
    id=provider_id("MONERIUM"),
    code="MONERIUM",
    name="Monerium",
    environment="production",
    corridors=_both_ways(
        _bank("EUR", [Rail.SEPA], _SEPA_COUNTRIES),
        _crypto(*_MONERIUM_CRYPTO),
        ("1.00", _MONERIUM_MAX),
        _limits(_MONERIUM_CRYPTO, "1", _MONERIUM_MAX),
    ),
    requirements=(_req("KYC_BASIC"), _req("PROOF_OF_ADDRESS", "KYC_BASIC")),
)

# A production project routes through those of these it has a healthy account with.
PRODUCTION_PROVIDERS: tuple[Provider, ...] = (BRIDGE, MONERIUM)

_ROSTERS: dict[str, tuple[Provider, ...]] = {
    "sandbox": SANDBOX_PROVIDERS,
    "production": PRODUCTION_PROVIDERS,
}
_ALL = SANDBOX_PROVIDERS + PRODUCTION_PROVIDERS
_BY_ID = {p.id: p for p in _ALL}
_BY_CODE = {p.code: p for p in _ALL}


def providers_for(environment: str) -> tuple[Provider, ...]:
    """The provider roster of an environment ("sandbox" or "production")."""
    try:
        return _ROSTERS[str(environment)]
    except KeyError:
        raise ValueError(f"unknown environment {environment!r}") from None


def provider_by_id(id: str) -> Provider | None:
    return _BY_ID.get(id)


def provider_by_code(code: str) -> Provider | None:
    return _BY_CODE.get(code)


def supported_routes(providers: Sequence[Provider]) -> list[Route]:
    """One route per (from, to) pair any corridor serves, sorted by (from, to).

    Provider ids keep the order of `providers`, which is the selection order when an
    intent names no provider.
    """
    served: dict[tuple[str, str], list[str]] = {}
    for provider in providers:
        for corridor in provider.corridors:
            for src in corridor.source.currencies:
                for dest in corridor.destination.currencies:
                    ids = served.setdefault((src, dest), [])
                    if provider.id not in ids:
                        ids.append(provider.id)
    return [
        Route(from_code=src, to_code=dest, provider_ids=ids)
        for (src, dest), ids in sorted(served.items())
    ]
