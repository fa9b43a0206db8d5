"""The static catalog: currencies, sandbox providers, routes, schemas and eligibility."""

from __future__ import annotations

import copy
import graphlib
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped, unused-ignore]
from pydantic import ValidationError

from ramp.catalog import (
    SANDBOX_PROVIDERS,
    SCHEMA_DIALECT,
    AccountFacts,
    AccountType,
    ComplianceRequirement,
    CurrencyType,
    MovementType,
    Provider,
    Rail,
    UnsupportedRoute,
    all_currencies,
    currency_by_code,
    currency_by_id,
    eligible_providers,
    ineligibility_reasons,
    matching_corridor,
    provider_by_code,
    provider_by_id,
    providers_for,
    route_requirements,
    supported_routes,
    validate_account,
)

SANDBOX = providers_for("sandbox")
ROUTES = supported_routes(SANDBOX)
ROUTE_PAIRS = [(r.from_code, r.to_code) for r in ROUTES]


def _provider(code: str) -> Provider:
    provider = provider_by_code(code)
    assert provider is not None, code
    return provider


ATLAS = _provider("sandbox_atlas")
BEACON = _provider("sandbox_beacon")
MERIDIAN = _provider("sandbox_meridian")
ANDES = _provider("sandbox_andes")
THAMES = _provider("sandbox_thames")


def _bank(currency: str, rail: Rail | None, country: str | None) -> AccountFacts:
    return AccountFacts(
        currency_code=currency,
        account_type=AccountType.BANK_ACCOUNT,
        rail=rail,
        country_code=country,
    )


def _crypto(currency: str) -> AccountFacts:
    return AccountFacts(currency_code=currency, account_type=AccountType.CRYPTO_ADDRESS)


def _example(src: str, dest: str, side: str, rail: Rail | None = None) -> dict[str, Any]:
    schema = getattr(route_requirements(src, dest, SANDBOX), side)
    for example in schema["examples"]:
        if rail is None or example.get("rails") == rail:
            return copy.deepcopy(example)
    raise AssertionError(f"no {rail} example for {src} -> {dest} {side}")


# --- currencies ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "decimals", "kind", "chain_id"),
    [
        ("USD", 2, CurrencyType.FIAT, None),
        ("EUR", 2, CurrencyType.FIAT, None),
        ("BRL", 2, CurrencyType.FIAT, None),
        ("MXN", 2, CurrencyType.FIAT, None),
        ("GBP", 2, CurrencyType.FIAT, None),
        ("USDC_ETHEREUM", 6, CurrencyType.CRYPTO, 1),
        ("USDC_POLYGON", 6, CurrencyType.CRYPTO, 137),
        ("USDC_BASE", 6, CurrencyType.CRYPTO, 8453),
        ("USDC_SOLANA", 6, CurrencyType.CRYPTO, None),
        ("EURE_GNOSIS", 18, CurrencyType.CRYPTO, 100),
        ("EURE_ETHEREUM", 18, CurrencyType.CRYPTO, 1),
        ("EURE_POLYGON", 18, CurrencyType.CRYPTO, 137),
        ("EURE_ARBITRUM", 18, CurrencyType.CRYPTO, 42161),
        ("EURE_LINEA", 18, CurrencyType.CRYPTO, 59144),
        ("EURE_BASE", 18, CurrencyType.CRYPTO, 8453),
        ("ETH_ETHEREUM", 18, CurrencyType.CRYPTO, 1),
        ("BTC_BITCOIN", 8, CurrencyType.CRYPTO, None),
    ],
)
def test_currency_facts(code: str, decimals: int, kind: CurrencyType, chain_id: int | None) -> None:
    currency = currency_by_code(code)
    assert currency is not None
    assert currency.decimals == decimals
    assert currency.type is kind
    assert currency.chain_id == chain_id
    assert currency.id == str(uuid.uuid5(uuid.NAMESPACE_URL, "ramp:currency:" + code))
    assert currency_by_id(currency.id) is currency
    expected_account = (
        AccountType.BANK_ACCOUNT if kind is CurrencyType.FIAT else AccountType.CRYPTO_ADDRESS
    )
    assert currency.account_type is expected_account


def test_currency_codes_follow_the_contract() -> None:
    codes = [c.code for c in all_currencies()]
    assert len(codes) == len(set(codes))
    for currency in all_currencies():
        assert currency.created_at.tzinfo is not None
        if currency.type is CurrencyType.CRYPTO:
            assert currency.code == f"{currency.ticker.upper()}_{currency.blockchain}"
        else:
            assert len(currency.code) == 3
            assert currency.blockchain is None


def test_currency_lookup_is_exact() -> None:
    assert currency_by_code("usd") is None
    assert currency_by_code("USDC") is None
    assert currency_by_id("not-an-id") is None


# --- providers and routes --------------------------------------------------------------


def test_sandbox_roster_and_production_roster() -> None:
    assert len(SANDBOX) >= 4
    # Production: the real providers with a connector (ramp/adapters/registry.py).
    assert [p.code for p in providers_for("production")] == ["BRIDGE", "MONERIUM"]
    assert all(p.environment == "production" for p in providers_for("production"))
    with pytest.raises(ValueError, match="unknown environment"):
        providers_for("staging")
    assert len({p.id for p in SANDBOX}) == len(SANDBOX)
    assert len({p.code for p in SANDBOX}) == len(SANDBOX)
    for provider in SANDBOX:
        assert provider.environment == "sandbox"
        assert provider.id == str(uuid.uuid5(uuid.NAMESPACE_URL, "ramp:provider:" + provider.code))
        assert provider_by_id(provider.id) is provider
        assert provider_by_code(provider.code) is provider
    assert provider_by_id("nope") is None


def test_corridors_use_catalog_currencies_with_matching_account_types() -> None:
    for provider in SANDBOX:
        for corridor in provider.corridors:
            for side in (corridor.source, corridor.destination):
                for code in side.currencies:
                    currency = currency_by_code(code)
                    assert currency is not None, (provider.code, code)
                    assert currency.account_type is side.account_type, (provider.code, code)
            for code, limits in corridor.limits.items():
                currency = currency_by_code(code)
                assert currency is not None
                # A limit must be an amount the currency can actually express.
                for bound in (limits.minimum, limits.maximum):
                    exponent = bound.as_tuple().exponent
                    assert isinstance(exponent, int)
                    assert -exponent <= currency.decimals, (provider.code, code, bound)
                assert Decimal(0) < limits.minimum <= limits.maximum


def test_requirement_graphs_are_acyclic_and_in_order() -> None:
    for provider in SANDBOX:
        codes = [r.code for r in provider.requirements]
        assert codes, provider.code
        assert len(codes) == len(set(codes))
        graph = {r.code: set(r.depends_on) for r in provider.requirements}
        # Raises CycleError on a cycle; every dependency must also be a known requirement.
        list(graphlib.TopologicalSorter(graph).static_order())
        for index, requirement in enumerate(provider.requirements):
            assert set(requirement.depends_on) <= set(codes[:index]), (provider.code, codes)


def test_provider_rejects_out_of_order_or_cyclic_requirements() -> None:
    good = ATLAS.model_dump()
    out_of_order = {
        **good,
        "requirements": [
            ComplianceRequirement(code="KYC_BASIC", description="x", depends_on=("TOS",)),
            ComplianceRequirement(code="TOS", description="x"),
        ],
    }
    with pytest.raises(ValidationError, match="not declared before it"):
        Provider.model_validate(out_of_order)
    cyclic = {
        **good,
        "requirements": [ComplianceRequirement(code="A", description="x", depends_on=("A",))],
    }
    with pytest.raises(ValidationError):
        Provider.model_validate(cyclic)


def test_requirement_sets_differ_between_providers() -> None:
    assert [r.code for r in BEACON.requirements] == ["TERMS_OF_SERVICE", "KYC_BASIC"]
    assert [r.code for r in ATLAS.requirements] == [
        "TERMS_OF_SERVICE",
        "KYC_BASIC",
        "SOURCE_OF_FUNDS",
    ]


def test_routes_are_sorted_unique_and_shared() -> None:
    assert sorted(ROUTE_PAIRS) == ROUTE_PAIRS
    assert len(ROUTE_PAIRS) == len(set(ROUTE_PAIRS))
    by_pair = {(r.from_code, r.to_code): r.provider_ids for r in ROUTES}
    assert by_pair[("USD", "USDC_ETHEREUM")] == [ATLAS.id, BEACON.id]
    assert by_pair[("EUR", "USDC_ETHEREUM")] == [MERIDIAN.id, THAMES.id]
    assert by_pair[("USDC_ETHEREUM", "USD")] == [ATLAS.id]  # Beacon is on-ramp only
    assert ("USD", "EUR") not in by_pair
    assert sum(len(ids) >= 2 for ids in by_pair.values()) >= 2
    for ids in by_pair.values():
        assert len(ids) == len(set(ids))
    # Provider order follows the roster order passed in.
    reversed_routes = supported_routes(list(reversed(SANDBOX)))
    shared = next(
        r for r in reversed_routes if (r.from_code, r.to_code) == ("USD", "USDC_ETHEREUM")
    )
    assert shared.provider_ids == [BEACON.id, ATLAS.id]


def test_routes_cover_both_directions() -> None:
    kinds = {c.type for p in SANDBOX for c in p.corridors}
    assert kinds == {MovementType.ONRAMP, MovementType.OFFRAMP}
    assert supported_routes([]) == []


# --- requirement schemas ---------------------------------------------------------------


@pytest.mark.parametrize(("src", "dest"), ROUTE_PAIRS)
def test_every_example_validates(src: str, dest: str) -> None:
    requirements = route_requirements(src, dest, SANDBOX)
    assert (requirements.src, requirements.dest) == (src, dest)
    for side, code in (("source", src), ("destination", dest)):
        schema = getattr(requirements, side)
        Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == SCHEMA_DIALECT
        assert schema["title"]
        assert schema["description"]
        assert schema["additionalProperties"] is False
        assert schema["properties"]["currency"]["const"] == code
        assert schema["examples"]
        for example in schema["examples"]:
            assert validate_account(schema, example) == [], example
        if "rails" in schema["properties"]:
            rails = schema["properties"]["rails"]["enum"]
            assert rails
            assert {e["rails"] for e in schema["examples"]} == set(rails)
            assert set(schema["required"]) >= {
                "rails",
                "currency",
                "countryCode",
                "institutionName",
                "accountIdentifier",
                "beneficiary",
            }
        else:
            assert schema["required"] == ["address", "currency"]


def test_bank_schema_is_built_from_serving_providers() -> None:
    usd = route_requirements("USD", "USDC_ETHEREUM", SANDBOX).source
    assert usd["properties"]["rails"]["enum"] == ["ACH", "WIRE"]
    assert usd["properties"]["countryCode"]["enum"] == ["US"]
    # Only Beacon serves USD -> BTC, and Beacon has no wires nor wire-only fields.
    btc = route_requirements("USD", "BTC_BITCOIN", SANDBOX).source
    assert btc["properties"]["rails"]["enum"] == ["ACH"]
    assert "beneficiaryAddress" not in btc["properties"]
    assert "dependentSchemas" not in btc
    eur = route_requirements("EUR", "USDC_ETHEREUM", SANDBOX).source
    assert "GB" in eur["properties"]["countryCode"]["enum"]  # Thames
    assert "DE" in eur["properties"]["countryCode"]["enum"]  # Meridian
    only_meridian = route_requirements("EUR", "USDC_ETHEREUM", [MERIDIAN]).source
    assert "GB" not in only_meridian["properties"]["countryCode"]["enum"]
    offramp = route_requirements("USDC_POLYGON", "MXN", SANDBOX).destination
    assert offramp["properties"]["rails"]["enum"] == ["SPEI"]
    assert "dependentSchemas" in usd
    assert set(usd["dependentSchemas"]) == {"beneficiaryAddress", "intermediaryBank"}


def test_requirements_are_deterministic_and_not_shared() -> None:
    first = route_requirements("USD", "USDC_ETHEREUM", SANDBOX)
    second = route_requirements("USD", "USDC_ETHEREUM", SANDBOX)
    assert first == second
    first.source["properties"].clear()
    third = route_requirements("USD", "USDC_ETHEREUM", SANDBOX)
    assert third.source == second.source


@pytest.mark.parametrize(
    ("src", "dest", "unknown"),
    [
        ("XYZ", "USD", ("XYZ",)),
        ("USD", "usdc_ethereum", ("usdc_ethereum",)),
        ("FOO", "BAR", ("FOO", "BAR")),
        ("USD", "EUR", ()),
        ("USD", "USD", ()),
        ("EUR", "USDC_SOLANA", ()),
    ],
)
def test_unsupported_routes(src: str, dest: str, unknown: tuple[str, ...]) -> None:
    with pytest.raises(UnsupportedRoute) as caught:
        route_requirements(src, dest, SANDBOX)
    error = caught.value
    assert isinstance(error, ValueError)
    assert (error.src, error.dest, error.unknown_codes) == (src, dest, unknown)
    assert f"{src} -> {dest}" in error.reason
    assert ("unknown" in error.reason) == bool(unknown)
    assert ("no provider" in error.reason) != bool(unknown)


def test_served_pair_is_unsupported_without_its_providers() -> None:
    with pytest.raises(UnsupportedRoute, match="no provider serves"):
        route_requirements("USD", "USDC_ETHEREUM", ())
    # Served in production only through Bridge: GBP is not among its currencies.
    with pytest.raises(UnsupportedRoute, match="no provider serves"):
        route_requirements("GBP", "USDC_ETHEREUM", providers_for("production"))


def _set(document: dict[str, Any], pointer: str, value: Any) -> None:
    *parents, last = pointer.strip("/").split("/")
    for part in parents:
        document = document[part]
    if value is _DELETE:
        del document[last]
    else:
        document[last] = value


_DELETE = object()


@pytest.mark.parametrize(
    ("route", "side", "rail", "pointer", "value", "reason"),
    [
        # ABA checksum fails although the shape is right.
        (
            ("USD", "USDC_ETHEREUM"),
            "source",
            Rail.ACH,
            "/accountIdentifier/routingNumber",
            "021000022",
            "ABA",
        ),
        (
            ("USD", "USDC_ETHEREUM"),
            "source",
            Rail.ACH,
            "/accountIdentifier/routingNumber",
            "12345",
            "pattern",
        ),
        (
            ("USD", "USDC_ETHEREUM"),
            "source",
            Rail.ACH,
            "/accountIdentifier/routingNumber",
            _DELETE,
            "is required",
        ),
        (
            ("USD", "USDC_ETHEREUM"),
            "source",
            Rail.WIRE,
            "/beneficiaryAddress",
            _DELETE,
            "is required",
        ),
        (
            ("USD", "USDC_ETHEREUM"),
            "source",
            Rail.ACH,
            "/accountIdentifier/iban",
            "DE89370400440532013000",
            "is not allowed",
        ),
        (("USD", "USDC_ETHEREUM"), "source", Rail.ACH, "/rails", "SEPA", "must be one of"),
        (("USD", "BTC_BITCOIN"), "source", Rail.ACH, "/rails", "WIRE", "must be one of"),
        (("USD", "USDC_ETHEREUM"), "source", Rail.ACH, "/countryCode", "CA", "must be one of"),
        (("USD", "USDC_ETHEREUM"), "source", Rail.ACH, "/beneficiary/taxId", "ABC", "pattern"),
        # Python's `$` would accept a trailing newline; JSON Schema (ECMA-262) does not.
        (
            ("USD", "USDC_ETHEREUM"),
            "source",
            Rail.ACH,
            "/accountIdentifier/accountNumber",
            "000123456789\n",
            "pattern",
        ),
        (
            ("USD", "USDC_ETHEREUM"),
            "source",
            Rail.ACH,
            "/accountIdentifier/routingNumber",
            "021000021\n",
            "pattern",
        ),
        (("USD", "USDC_ETHEREUM"), "source", Rail.ACH, "/nickname", "x", "is not allowed"),
        (("USD", "USDC_ETHEREUM"), "source", Rail.ACH, "/institutionName", "B" * 141, "at most"),
        (("USD", "USDC_ETHEREUM"), "source", Rail.ACH, "/institutionName", "  ", "pattern"),
        (
            ("EUR", "USDC_ETHEREUM"),
            "source",
            Rail.SEPA,
            "/accountIdentifier/iban",
            "DE89370400440532013001",
            "IBAN",
        ),
        (
            ("EUR", "USDC_ETHEREUM"),
            "source",
            Rail.SEPA,
            "/accountIdentifier/iban",
            "de89 3704 0044 0532 0130 00",
            "pattern",
        ),
        (
            ("EUR", "USDC_ETHEREUM"),
            "source",
            Rail.SEPA,
            "/accountIdentifier/iban",
            _DELETE,
            "is required",
        ),
        (
            ("USDC_POLYGON", "MXN"),
            "destination",
            Rail.SPEI,
            "/accountIdentifier/clabe",
            "032180000118359710",
            "CLABE",
        ),
        (
            ("BRL", "USDC_BASE"),
            "source",
            Rail.PIX,
            "/accountIdentifier/pixKey",
            "not a key",
            "pattern",
        ),
        (
            ("BRL", "USDC_BASE"),
            "source",
            Rail.PIX,
            "/beneficiary/taxId",
            "12-3456789",
            "pattern",
        ),
        (
            ("GBP", "USDC_ETHEREUM"),
            "source",
            Rail.FPS,
            "/accountIdentifier/sortCode",
            "40-12-76",
            "pattern",
        ),
        (("USD", "USDC_ETHEREUM"), "destination", None, "/address", "0x1234", "pattern"),
        (
            ("USD", "USDC_ETHEREUM"),
            "destination",
            None,
            "/address",
            "0x742d35cc6634C0532925a3b844Bc454e4438f44e",
            "EIP-55",
        ),
        (
            ("USD", "USDC_ETHEREUM"),
            "destination",
            None,
            "/address",
            "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
            "pattern",
        ),
        (
            ("USD", "BTC_BITCOIN"),
            "destination",
            None,
            "/address",
            "0x742d35Cc6634C0532925a3b844Bc454e4438f44e",
            "pattern",
        ),
        (
            ("USD", "USDC_SOLANA"),
            "destination",
            None,
            "/address",
            "0OIl" * 10,
            "pattern",
        ),
        (("USD", "USDC_ETHEREUM"), "destination", None, "/currency", "USDC_BASE", "must be"),
        (("USD", "USDC_ETHEREUM"), "destination", None, "/memo", "x", "is not allowed"),
    ],
)
def test_invalid_metadata_is_reported_at_the_right_pointer(
    route: tuple[str, str],
    side: str,
    rail: Rail | None,
    pointer: str,
    value: Any,
    reason: str,
) -> None:
    schema = getattr(route_requirements(*route, SANDBOX), side)
    metadata = _example(*route, side, rail)
    _set(metadata, pointer, value)
    violations = validate_account(schema, metadata)
    assert [v.pointer for v in violations] == [pointer], violations
    assert reason in violations[0].reason
    if isinstance(value, str):
        # Account data must not be echoed into error messages.
        assert value not in violations[0].reason


def test_dependent_schema_ties_intermediary_bank_to_wires() -> None:
    schema = route_requirements("USD", "USDC_ETHEREUM", SANDBOX).source
    wire = _example("USD", "USDC_ETHEREUM", "source", Rail.WIRE)
    wire["intermediaryBank"] = {"name": "Citibank N.A.", "swiftCode": "CITIUS33"}
    assert validate_account(schema, wire) == []
    ach = _example("USD", "USDC_ETHEREUM", "source", Rail.ACH)
    ach["intermediaryBank"] = {"name": "Citibank N.A.", "swiftCode": "CITIUS33"}
    violations = validate_account(schema, ach)
    assert [v.pointer for v in violations] == ["/rails"]
    assert "intermediaryBank" in violations[0].reason
    wire["intermediaryBank"] = {"name": "Citibank N.A."}
    assert [v.pointer for v in validate_account(schema, wire)] == ["/intermediaryBank/swiftCode"]


def test_violations_are_all_reported_sorted_and_escaped() -> None:
    schema = route_requirements("USD", "USDC_ETHEREUM", SANDBOX).source
    metadata = _example("USD", "USDC_ETHEREUM", "source", Rail.ACH)
    del metadata["beneficiary"]["name"]
    metadata["accountIdentifier"]["accountNumber"] = "12"
    metadata["a/b~c"] = 1
    violations = validate_account(schema, metadata)
    assert [(v.pointer, v.reason) for v in violations] == [
        ("/a~1b~0c", "is not allowed"),
        ("/accountIdentifier/accountNumber", "does not match the pattern ^[0-9]{4,17}$"),
        ("/beneficiary/name", "is required"),
    ]
    root = validate_account(schema, ["not", "an", "object"])
    assert [v.pointer for v in root] == [""]
    assert validate_account(schema, {})[0].reason == "is required"


def test_mixed_case_address_with_valid_checksum_and_lower_case_pass() -> None:
    schema = route_requirements("USD", "USDC_ETHEREUM", SANDBOX).destination
    for address in (
        "0x742d35Cc6634C0532925a3b844Bc454e4438f44e",
        "0x742d35cc6634c0532925a3b844bc454e4438f44e",
    ):
        assert validate_account(schema, {"address": address, "currency": "USDC_ETHEREUM"}) == []


# --- eligibility -----------------------------------------------------------------------


def test_currency_decides() -> None:
    # Only Beacon reaches Bitcoin from USD.
    source, destination = _bank("USD", Rail.ACH, "US"), _crypto("BTC_BITCOIN")
    eligible, rejected = eligible_providers(SANDBOX, source, destination)
    assert eligible == [BEACON]
    assert rejected["sandbox_atlas"] == ["destination currency BTC_BITCOIN not supported"]
    assert rejected["sandbox_meridian"] == [
        "source currency USD not supported",
        "destination currency BTC_BITCOIN not supported",
    ]
    # Beacon is on-ramp only, so the way back has no Beacon corridor.
    assert ineligibility_reasons(BEACON, _crypto("USDC_ETHEREUM"), _bank("USD", Rail.ACH, "US"))
    assert (
        ineligibility_reasons(ATLAS, _crypto("USDC_ETHEREUM"), _bank("USD", Rail.ACH, "US")) == []
    )


def test_account_type_decides() -> None:
    source = AccountFacts(currency_code="USD", account_type=AccountType.CRYPTO_ADDRESS)
    assert ineligibility_reasons(ATLAS, source, _crypto("USDC_ETHEREUM")) == [
        "source account type CRYPTO_ADDRESS not supported"
    ]
    destination = _bank("USDC_ETHEREUM", Rail.ACH, "US")
    assert ineligibility_reasons(ATLAS, _bank("USD", Rail.ACH, "US"), destination) == [
        "destination account type BANK_ACCOUNT not supported"
    ]


def test_rail_decides() -> None:
    destination = _crypto("USDC_ETHEREUM")
    ach, _ = eligible_providers(SANDBOX, _bank("USD", Rail.ACH, "US"), destination)
    assert ach == [ATLAS, BEACON]
    wire, rejected = eligible_providers(SANDBOX, _bank("USD", Rail.WIRE, "US"), destination)
    assert wire == [ATLAS]
    assert rejected["sandbox_beacon"] == ["source rail WIRE not supported"]
    assert ineligibility_reasons(ATLAS, _bank("USD", None, "US"), destination) == [
        "source rail missing"
    ]


def test_country_decides() -> None:
    destination = _crypto("USDC_ETHEREUM")
    germany, rejected = eligible_providers(SANDBOX, _bank("EUR", Rail.SEPA, "DE"), destination)
    assert germany == [MERIDIAN]
    assert rejected["sandbox_thames"] == ["source country DE not supported"]
    britain, rejected = eligible_providers(SANDBOX, _bank("EUR", Rail.SEPA, "GB"), destination)
    assert britain == [THAMES]
    assert rejected["sandbox_meridian"] == ["source country GB not supported"]
    ireland, _ = eligible_providers(SANDBOX, _bank("EUR", Rail.SEPA, "IE"), destination)
    assert ireland == [MERIDIAN, THAMES]
    canada = ineligibility_reasons(ATLAS, _bank("USD", Rail.ACH, "CA"), destination)
    assert canada == ["source country CA not supported"]
    # Off-ramp: the bank account is the destination.
    assert ineligibility_reasons(ANDES, _crypto("USDC_POLYGON"), _bank("BRL", Rail.PIX, "MX")) == [
        "destination country MX not supported"
    ]


def test_reasons_come_from_the_closest_corridor() -> None:
    # BRL over SPEI: Andes has both rails, but never together for BRL.
    reasons = ineligibility_reasons(ANDES, _bank("BRL", Rail.SPEI, "BR"), _crypto("USDC_BASE"))
    assert reasons == ["source rail SPEI not supported"]
    reasons = ineligibility_reasons(ATLAS, _bank("USD", Rail.SEPA, "DE"), _crypto("USDC_BASE"))
    assert reasons == ["source rail SEPA not supported", "source country DE not supported"]


def test_crypto_side_ignores_rail_and_country() -> None:
    destination = AccountFacts(
        currency_code="USDC_ETHEREUM",
        account_type=AccountType.CRYPTO_ADDRESS,
        rail=Rail.FPS,
        country_code="ZZ",
    )
    assert ineligibility_reasons(ATLAS, _bank("USD", Rail.ACH, "US"), destination) == []


def test_matching_corridor_carries_rail_specific_limits() -> None:
    destination = _crypto("USDC_ETHEREUM")
    ach = matching_corridor(ATLAS, _bank("USD", Rail.ACH, "US"), destination)
    wire = matching_corridor(ATLAS, _bank("USD", Rail.WIRE, "US"), destination)
    assert ach is not None
    assert wire is not None
    assert ach.limits["USD"].maximum < wire.limits["USD"].maximum
    assert matching_corridor(BEACON, _bank("USD", Rail.WIRE, "US"), destination) is None


def test_account_facts_from_metadata() -> None:
    metadata = _example("USD", "USDC_ETHEREUM", "source", Rail.WIRE)
    facts = AccountFacts.from_metadata("USD", AccountType.BANK_ACCOUNT, metadata)
    assert facts == _bank("USD", Rail.WIRE, "US")
    crypto = AccountFacts.from_metadata(
        "USDC_ETHEREUM", AccountType.CRYPTO_ADDRESS, {"address": "0x", "rails": "ACH"}
    )
    assert crypto == _crypto("USDC_ETHEREUM")
    with pytest.raises(ValueError, match="SWIFT"):
        AccountFacts.from_metadata("USD", AccountType.BANK_ACCOUNT, {"rails": "SWIFT"})


def test_every_route_has_an_eligible_provider_for_its_examples() -> None:
    # The examples we publish must actually route somewhere.
    for route in ROUTES:
        requirements = route_requirements(route.from_code, route.to_code, SANDBOX)
        for source in requirements.source["examples"]:
            for destination in requirements.destination["examples"]:
                facts = [
                    _facts(route.from_code, source),
                    _facts(route.to_code, destination),
                ]
                eligible, _ = eligible_providers(SANDBOX, *facts)
                assert [p.id for p in eligible], (route, source, destination)
                assert {p.id for p in eligible} <= set(route.provider_ids)


@pytest.mark.parametrize("provider", SANDBOX, ids=lambda p: p.code)
def test_single_provider_schemas_fit_that_provider(provider: Provider) -> None:
    # Schemas narrowed to one provider (a project that enabled only it) must still offer
    # examples that validate and that this very provider accepts.
    for route in supported_routes([provider]):
        requirements = route_requirements(route.from_code, route.to_code, [provider])
        for source in requirements.source["examples"]:
            assert validate_account(requirements.source, source) == []
            for destination in requirements.destination["examples"]:
                assert validate_account(requirements.destination, destination) == []
                reasons = ineligibility_reasons(
                    provider, _facts(route.from_code, source), _facts(route.to_code, destination)
                )
                assert reasons == [], (route, source, destination)


def _facts(code: str, metadata: dict[str, Any]) -> AccountFacts:
    currency = currency_by_code(code)
    assert currency is not None
    return AccountFacts.from_metadata(code, currency.account_type, metadata)


# --- docs ------------------------------------------------------------------------------


def test_sandbox_docs_list_every_provider_and_route() -> None:
    text = (Path(__file__).resolve().parents[1] / "docs" / "sandbox.md").read_text()
    for provider in SANDBOX_PROVIDERS:
        assert provider.id in text
        assert provider.code in text
    for src, dest in ROUTE_PAIRS:
        assert f"| {src} | {dest} |" in text
    assert "## Test values for outcomes" in text


def test_reasons_never_echo_the_submitted_value() -> None:
    schema = route_requirements("USD", "USDC_ETHEREUM", providers_for("sandbox")).source
    account = copy.deepcopy(schema["examples"][0])
    account["accountIdentifier"]["accountNumber"] = 987654321012  # a number, not a string
    account["currency"] = "SECRETCODE"
    violations = validate_account(schema, account)
    violations += validate_account(schema, {**account, "rails": "SECRETRAIL"})
    assert {v.pointer for v in violations} >= {
        "/accountIdentifier/accountNumber",
        "/currency",
        "/rails",
    }
    text = " ".join(v.reason for v in violations)
    assert "987654321012" not in text
    assert "SECRET" not in text
