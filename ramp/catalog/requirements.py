"""JSON Schemas for external-account metadata on a route, and validation against them.

The schemas are derived from the providers that serve the route, so they only accept
rails, countries and provider-specific fields that at least one of those providers can
use. Besides standard keywords they use four custom `format` values (`iban`,
`aba-routing-number`, `clabe`, `evm-address`) for checksums that a regular expression
cannot express; validators that do not know them treat them as annotations, while
`validate_account` enforces them.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jsonschema import (
    Draft202012Validator,
    FormatChecker,
    ValidationError,
    validators,
)
from pydantic import BaseModel, ConfigDict

from .currencies import currency_by_code
from .models import AccountSide, AccountType, Currency, ExtraFieldName, Provider, Rail

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

# --- field patterns --------------------------------------------------------------------

_ROUTING_NUMBER = "^[0-9]{9}$"
_US_ACCOUNT_NUMBER = "^[0-9]{4,17}$"
_IBAN = "^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$"
_BIC = "^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$"
# CPF (11 digits), CNPJ (14 digits), e-mail, +55 phone, or a random (EVP) UUID key.
_PIX_KEY = (
    "^([0-9]{11}|[0-9]{14}|[^@\\s]{1,64}@[^@\\s]+\\.[^@\\s]+|\\+55[0-9]{10,11}"
    "|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$"
)
_CLABE = "^[0-9]{18}$"
_SORT_CODE = "^[0-9]{6}$"
_UK_ACCOUNT_NUMBER = "^[0-9]{8}$"
_COUNTRY = "^[A-Z]{2}$"
_NOT_BLANK = "\\S"

_EVM_ADDRESS = "^0x[a-fA-F0-9]{40}$"
# Mainnet P2WPKH/P2WSH/P2TR bech32(m) in either case, or legacy P2PKH/P2SH base58.
_BTC_ADDRESS = (
    "^(bc1[qp][02-9ac-hj-np-z]{38,58}|BC1[QP][02-9AC-HJ-NP-Z]{38,58}"
    "|[13][1-9A-HJ-NP-Za-km-z]{25,34})$"
)
_SOLANA_ADDRESS = "^[1-9A-HJ-NP-Za-km-z]{32,44}$"

# Tax ids whose national format we know; other countries get the generic pattern.
_GENERIC_TAX_ID = "^[A-Za-z0-9][A-Za-z0-9./ -]{2,38}[A-Za-z0-9]$"
_TAX_ID_BY_COUNTRY: dict[str, tuple[str, str]] = {
    "US": ("^([0-9]{3}-?[0-9]{2}-?[0-9]{4}|[0-9]{2}-?[0-9]{7})$", "SSN, ITIN or EIN"),
    "BR": (
        "^([0-9]{3}\\.?[0-9]{3}\\.?[0-9]{3}-?[0-9]{2}"
        "|[0-9]{2}\\.?[0-9]{3}\\.?[0-9]{3}/?[0-9]{4}-?[0-9]{2})$",
        "CPF or CNPJ",
    ),
    "MX": ("^[A-Z&Ñ]{3,4}[0-9]{6}[A-Z0-9]{3}$", "RFC"),
    "GB": (
        "^([A-CEGHJ-PR-TW-Z]{2}[0-9]{6}[A-D]|[0-9]{10}|[A-Z0-9]{8})$",
        "National Insurance number, UTR or company number",
    ),
}


@dataclass(frozen=True)
class _RailSpec:
    description: str
    properties: dict[str, dict[str, Any]]
    required: tuple[str, ...]
    example: dict[str, str]
    example_institution: str
    example_country: tuple[str, ...]  # preferred countries for the example, in order


_ABA = {
    "type": "string",
    "pattern": _ROUTING_NUMBER,
    "format": "aba-routing-number",
    "description": "9-digit ABA routing number (checksum verified)",
}
_US_ACCOUNT = {
    "type": "string",
    "pattern": _US_ACCOUNT_NUMBER,
    "description": "US bank account number, 4 to 17 digits",
}

_RAILS: dict[Rail, _RailSpec] = {
    Rail.ACH: _RailSpec(
        "US ACH transfer",
        {"routingNumber": _ABA, "accountNumber": _US_ACCOUNT},
        ("routingNumber", "accountNumber"),
        {"routingNumber": "021000021", "accountNumber": "000123456789"},
        "JPMorgan Chase Bank",
        ("US",),
    ),
    Rail.WIRE: _RailSpec(
        "US domestic wire (Fedwire)",
        {"routingNumber": _ABA, "accountNumber": _US_ACCOUNT},
        ("routingNumber", "accountNumber"),
        {"routingNumber": "026009593", "accountNumber": "4839201756"},
        "Bank of America",
        ("US",),
    ),
    Rail.SEPA: _RailSpec(
        "SEPA credit transfer",
        {
            "iban": {
                "type": "string",
                "pattern": _IBAN,
                "format": "iban",
                "description": "IBAN without spaces, upper case (mod-97 checksum verified)",
            },
            "bic": {
                "type": "string",
                "pattern": _BIC,
                "description": "BIC (SWIFT code) of the bank, 8 or 11 characters; optional",
            },
        },
        ("iban",),
        {"iban": "DE89370400440532013000", "bic": "COBADEFFXXX"},
        "Commerzbank",
        ("DE",),
    ),
    Rail.PIX: _RailSpec(
        "Brazilian PIX instant payment",
        {
            "pixKey": {
                "type": "string",
                "pattern": _PIX_KEY,
                "maxLength": 77,
                "description": "PIX key: CPF or CNPJ digits, e-mail, +55 phone or random key",
            }
        },
        ("pixKey",),
        {"pixKey": "12345678909"},
        "Banco do Brasil",
        ("BR",),
    ),
    Rail.SPEI: _RailSpec(
        "Mexican SPEI transfer",
        {
            "clabe": {
                "type": "string",
                "pattern": _CLABE,
                "format": "clabe",
                "description": "18-digit CLABE (check digit verified)",
            }
        },
        ("clabe",),
        {"clabe": "032180000118359719"},
        "BBVA México",
        ("MX",),
    ),
    Rail.FPS: _RailSpec(
        "UK Faster Payments",
        {
            "sortCode": {
                "type": "string",
                "pattern": _SORT_CODE,
                "description": "6-digit sort code without dashes",
            },
            "accountNumber": {
                "type": "string",
                "pattern": _UK_ACCOUNT_NUMBER,
                "description": "8-digit UK account number",
            },
        },
        ("sortCode", "accountNumber"),
        {"sortCode": "401276", "accountNumber": "41234567"},
        "HSBC UK",
        ("GB",),
    ),
}

# SEPA reaches many countries; an example IBAN must belong to the example's country.
_SEPA_EXAMPLES: dict[str, tuple[str, str, str]] = {
    "DE": ("DE89370400440532013000", "COBADEFFXXX", "Commerzbank"),
    "NL": ("NL91ABNA0417164300", "ABNANL2A", "ABN AMRO"),
    "IE": ("IE29AIBK93115212345678", "AIBKIE2D", "AIB"),
    "GB": ("GB29NWBK60161331926819", "NWBKGB2L", "NatWest"),
    "FR": ("FR1420041010050500013M02606", "PSSTFRPPPAR", "La Banque Postale"),
}

_TAX_ID_EXAMPLES = {
    "US": "12-3456789",
    "BR": "123.456.789-09",
    "MX": "XAXX010101000",
    "GB": "AB123456C",
}
_GENERIC_TAX_ID_EXAMPLE = "12345678901"

_EXTRA_FIELDS: dict[ExtraFieldName, dict[str, Any]] = {
    ExtraFieldName.BENEFICIARY_ADDRESS: {
        "type": "object",
        "description": "Postal address of the beneficiary",
        "additionalProperties": False,
        "properties": {
            "line1": {"type": "string", "minLength": 1, "maxLength": 100, "pattern": _NOT_BLANK},
            "line2": {"type": "string", "maxLength": 100},
            "city": {"type": "string", "minLength": 1, "maxLength": 60, "pattern": _NOT_BLANK},
            "region": {"type": "string", "maxLength": 60},
            "postalCode": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9 -]{1,9}$"},
            "country": {"type": "string", "pattern": _COUNTRY},
        },
        "required": ["line1", "city", "postalCode", "country"],
    },
    ExtraFieldName.INTERMEDIARY_BANK: {
        "type": "object",
        "description": "Correspondent bank the wire is routed through, when the bank needs one",
        "additionalProperties": False,
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 140, "pattern": _NOT_BLANK},
            "swiftCode": {"type": "string", "pattern": _BIC},
        },
        "required": ["name", "swiftCode"],
    },
}
_EXTRA_EXAMPLES: dict[ExtraFieldName, dict[str, str]] = {
    ExtraFieldName.BENEFICIARY_ADDRESS: {
        "line1": "350 Fifth Avenue",
        "city": "New York",
        "region": "NY",
        "postalCode": "10118",
        "country": "US",
    },
    ExtraFieldName.INTERMEDIARY_BANK: {"name": "Citibank N.A.", "swiftCode": "CITIUS33"},
}


@dataclass(frozen=True)
class _ChainSpec:
    pattern: str
    description: str
    example: str
    format: str | None = None


_EVM = _ChainSpec(
    _EVM_ADDRESS,
    "EVM address: 0x and 40 hex digits; mixed case must be a valid EIP-55 checksum",
    "0x742d35Cc6634C0532925a3b844Bc454e4438f44e",
    "evm-address",
)
_CHAINS: dict[str, _ChainSpec] = {
    "ETHEREUM": _EVM,
    "POLYGON": _EVM,
    "BASE": _EVM,
    "GNOSIS": _EVM,
    "BITCOIN": _ChainSpec(
        _BTC_ADDRESS,
        "Bitcoin mainnet address: bech32 (bc1...) or legacy (1... / 3...)",
        "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
    ),
    "SOLANA": _ChainSpec(
        _SOLANA_ADDRESS,
        "Solana address: base58, 32 to 44 characters",
        "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
    ),
}

# --- public types ----------------------------------------------------------------------


class UnsupportedRoute(ValueError):
    """No schema exists for the pair: a code is unknown or no provider serves it."""

    def __init__(
        self, src: str, dest: str, reason: str, unknown_codes: tuple[str, ...] = ()
    ) -> None:
        super().__init__(reason)
        self.src = src
        self.dest = dest
        self.reason = reason
        # Lets callers tell "no such currency" from "no such route" without parsing text.
        self.unknown_codes = unknown_codes


class RouteRequirements(BaseModel):
    model_config = ConfigDict(frozen=True)

    src: str
    dest: str
    source: dict[str, Any]
    destination: dict[str, Any]


class SchemaViolation(BaseModel):
    model_config = ConfigDict(frozen=True)

    pointer: str  # RFC 6901 JSON pointer into the metadata; "" is the whole document
    reason: str


# --- schema construction ---------------------------------------------------------------


@dataclass(frozen=True)
class _Roster:
    """Cache key for a provider list: providers are identified by id only."""

    ids: tuple[str, ...]
    providers: tuple[Provider, ...] = field(compare=False, hash=False)


def route_requirements(src: str, dest: str, providers: Sequence[Provider]) -> RouteRequirements:
    """The metadata schemas of the source and destination accounts of `src -> dest`.

    Raises UnsupportedRoute when a code is unknown or none of `providers` serves the pair.
    Each call returns fresh dicts, so callers may modify them without corrupting the cache.
    """
    labelled = (("source", src), ("destination", dest))
    unknown = [(label, code) for label, code in labelled if currency_by_code(code) is None]
    if unknown:
        names = " and ".join(f"{label} currency {code!r}" for label, code in unknown)
        raise UnsupportedRoute(
            src,
            dest,
            f"route {src} -> {dest} is not supported: unknown {names}",
            tuple(code for _, code in unknown),
        )
    roster = _Roster(tuple(p.id for p in providers), tuple(providers))
    source_json, destination_json = _build(src, dest, roster)
    return RouteRequirements(
        src=src,
        dest=dest,
        source=json.loads(source_json),
        destination=json.loads(destination_json),
    )


@functools.lru_cache(maxsize=256)
def _build(src: str, dest: str, roster: _Roster) -> tuple[str, str]:
    # Stored as JSON text so every caller gets an independent copy from json.loads.
    sources: list[tuple[Provider, AccountSide]] = []
    destinations: list[tuple[Provider, AccountSide]] = []
    for provider in roster.providers:
        for corridor in provider.corridors:
            if src in corridor.source.currencies and dest in corridor.destination.currencies:
                sources.append((provider, corridor.source))
                destinations.append((provider, corridor.destination))
    if not sources:
        raise UnsupportedRoute(
            src, dest, f"route {src} -> {dest} is not supported: no provider serves this pair"
        )
    src_currency = currency_by_code(src)
    dest_currency = currency_by_code(dest)
    # Both codes were checked by the caller.
    assert src_currency is not None
    assert dest_currency is not None
    route = f"{src} -> {dest}"
    return (
        json.dumps(_side_schema(src_currency, "source", route, sources)),
        json.dumps(_side_schema(dest_currency, "destination", route, destinations)),
    )


def _side_schema(
    currency: Currency, side: str, route: str, entries: list[tuple[Provider, AccountSide]]
) -> dict[str, Any]:
    names = _unique(p.name for p, _ in entries)
    served_by = f"Served by {', '.join(names)}."
    if currency.account_type is AccountType.BANK_ACCOUNT:
        return _bank_schema(currency, side, route, served_by, entries)
    return _crypto_schema(currency, side, route, served_by)


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _crypto_schema(currency: Currency, side: str, route: str, served_by: str) -> dict[str, Any]:
    assert currency.blockchain is not None
    chain = _CHAINS[currency.blockchain]
    address: dict[str, Any] = {
        "type": "string",
        "pattern": chain.pattern,
        "description": chain.description,
    }
    if chain.format is not None:
        address["format"] = chain.format
    return {
        "$schema": SCHEMA_DIALECT,
        "title": f"{currency.code} address ({side})",
        "description": f"{side.capitalize()} {currency.name} address for {route}. {served_by}",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "address": address,
            "currency": {"type": "string", "const": currency.code},
        },
        "required": ["address", "currency"],
        "examples": [{"address": chain.example, "currency": currency.code}],
    }


def _bank_schema(
    currency: Currency,
    side: str,
    route: str,
    served_by: str,
    entries: list[tuple[Provider, AccountSide]],
) -> dict[str, Any]:
    rails = [rail for rail in Rail if any(rail in s.rails for _, s in entries)]
    countries = sorted({c for _, s in entries for c in s.countries})
    rail_countries = {
        rail: sorted({c for _, s in entries if rail in s.rails for c in s.countries})
        for rail in rails
    }
    # Which rails accept each provider-specific field, and on which it is mandatory. A field
    # is mandatory if any serving provider needs it, so the account suits every provider.
    extra_allowed: dict[ExtraFieldName, set[Rail]] = {}
    extra_required: dict[Rail, set[ExtraFieldName]] = {rail: set() for rail in rails}
    for provider, s in entries:
        for extra in provider.extra_fields:
            on = [rail for rail in extra.rails if rail in s.rails]
            if on:
                extra_allowed.setdefault(extra.name, set()).update(on)
            if extra.required:
                for rail in on:
                    extra_required[rail].add(extra.name)
    extras = [name for name in ExtraFieldName if name in extra_allowed]

    identifier_doc = "; ".join(f"{rail}: {', '.join(_RAILS[rail].properties)}" for rail in rails)
    properties: dict[str, Any] = {
        "rails": {
            "type": "string",
            "enum": list(rails),
            "description": "Payment rail the account is reached through",
        },
        "currency": {"type": "string", "const": currency.code},
        "countryCode": {
            "type": "string",
            "enum": countries,
            "description": "ISO 3166-1 alpha-2 country of the bank",
        },
        "institutionName": {
            "type": "string",
            "minLength": 1,
            "maxLength": 140,
            "pattern": _NOT_BLANK,
            "description": "Name of the bank",
        },
        "accountIdentifier": {
            "type": "object",
            "description": f"Rail-specific account identifiers ({identifier_doc})",
        },
        "beneficiary": {
            "type": "object",
            "description": "Holder of the account",
            "additionalProperties": False,
            "properties": {
                "name": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 140,
                    "pattern": _NOT_BLANK,
                    "description": "Full legal name of the account holder",
                },
                "taxId": {
                    "type": "string",
                    "maxLength": 40,
                    "description": (
                        "Tax identification number of the account holder; "
                        "its format depends on countryCode"
                    ),
                },
            },
            "required": ["name", "taxId"],
        },
    }
    for name in extras:
        properties[name] = _EXTRA_FIELDS[name]

    conditions: list[dict[str, Any]] = []
    for rail in rails:
        spec = _RAILS[rail]
        then: dict[str, Any] = {
            "properties": {
                "accountIdentifier": {
                    "description": spec.description,
                    "additionalProperties": False,
                    "properties": spec.properties,
                    "required": list(spec.required),
                }
            }
        }
        if rail_countries[rail] != countries:
            then["properties"]["countryCode"] = {"enum": rail_countries[rail]}
        required_extras = [name for name in extras if name in extra_required[rail]]
        if required_extras:
            then["required"] = [str(name) for name in required_extras]
        conditions.append({"if": _when("rails", rail), "then": then})
    # Exactly one tax-id pattern applies to any country, so a bad tax id is reported once.
    generic = [c for c in countries if c not in _TAX_ID_BY_COUNTRY]
    if generic:
        conditions.append(
            {
                "if": {
                    "properties": {"countryCode": {"enum": generic}},
                    "required": ["countryCode"],
                },
                "then": _tax_id_rule(_GENERIC_TAX_ID, "National tax identification number"),
            }
        )
    for country in countries:
        if country in _TAX_ID_BY_COUNTRY:
            pattern, kind = _TAX_ID_BY_COUNTRY[country]
            conditions.append(
                {"if": _when("countryCode", country), "then": _tax_id_rule(pattern, kind)}
            )

    schema: dict[str, Any] = {
        "$schema": SCHEMA_DIALECT,
        "title": f"{currency.code} bank account ({side})",
        "description": (
            f"{side.capitalize()} {currency.name} bank account for {route}. {served_by} "
            "The identifiers required in accountIdentifier depend on rails."
        ),
        "type": "object",
        "additionalProperties": False,
        "properties": properties,
        "required": [
            "rails",
            "currency",
            "countryCode",
            "institutionName",
            "accountIdentifier",
            "beneficiary",
        ],
        "allOf": conditions,
    }
    # Provider-specific fields that only make sense on some rails (an intermediary bank
    # only exists for wires) pull in a rail restriction when present.
    dependent = {
        str(name): {"properties": {"rails": {"enum": [r for r in rails if r in allowed]}}}
        for name in extras
        if (allowed := extra_allowed[name]) != set(rails)
    }
    if dependent:
        schema["dependentSchemas"] = dependent
    schema["examples"] = _bank_examples(
        currency, rails, rail_countries, extras, extra_allowed, extra_required
    )
    return schema


def _tax_id_rule(pattern: str, kind: str) -> dict[str, Any]:
    return {
        "properties": {
            "beneficiary": {"properties": {"taxId": {"pattern": pattern, "description": kind}}}
        }
    }


def _when(prop: str, value: str) -> dict[str, Any]:
    # `required` keeps the condition from holding vacuously when the property is absent.
    return {"properties": {prop: {"const": value}}, "required": [prop]}


def _bank_examples(
    currency: Currency,
    rails: list[Rail],
    rail_countries: dict[Rail, list[str]],
    extras: list[ExtraFieldName],
    extra_allowed: dict[ExtraFieldName, set[Rail]],
    extra_required: dict[Rail, set[ExtraFieldName]],
) -> list[dict[str, Any]]:
    examples: list[dict[str, Any]] = []
    for rail in rails:
        spec = _RAILS[rail]
        candidates = rail_countries[rail]
        if rail is Rail.SEPA:
            country = next((c for c in _SEPA_EXAMPLES if c in candidates), candidates[0])
            iban, bic, institution = _SEPA_EXAMPLES.get(country, _SEPA_EXAMPLES["DE"])
            identifier = {"iban": iban, "bic": bic}
        else:
            country = next((c for c in spec.example_country if c in candidates), candidates[0])
            identifier = dict(spec.example)
            institution = spec.example_institution
        example: dict[str, Any] = {
            "rails": str(rail),
            "currency": currency.code,
            "countryCode": country,
            "institutionName": institution,
            "accountIdentifier": identifier,
            "beneficiary": {
                "name": "Alex Morgan",
                "taxId": _TAX_ID_EXAMPLES.get(country, _GENERIC_TAX_ID_EXAMPLE),
            },
        }
        for name in extras:
            if name in extra_required[rail]:
                example[str(name)] = dict(_EXTRA_EXAMPLES[name])
        examples.append(example)
        optional = [
            name
            for name in extras
            if rail in extra_allowed[name] and name not in extra_required[rail]
        ]
        if optional:
            # A second example shows the optional provider-specific fields filled in.
            fuller = json.loads(json.dumps(example))
            for name in optional:
                fuller[str(name)] = dict(_EXTRA_EXAMPLES[name])
            examples.append(fuller)
    return examples


# --- validation ------------------------------------------------------------------------

_FORMAT_CHECKER = FormatChecker()


def _is_iban(value: object) -> bool:
    # The shape is the pattern's job; only a well-shaped value gets its checksum checked,
    # so one mistake yields one violation.
    if not isinstance(value, str) or not re.fullmatch(_IBAN[1:-1], value):
        return True
    rearranged = value[4:] + value[:4]
    return int("".join(str(int(ch, 36)) for ch in rearranged)) % 97 == 1


def _is_aba_routing_number(value: object) -> bool:
    if not isinstance(value, str) or not re.fullmatch(_ROUTING_NUMBER[1:-1], value):
        return True
    digits = [int(d) for d in value]
    weighted = sum(w * d for w, d in zip((3, 7, 1) * 3, digits, strict=True))
    return weighted % 10 == 0


def _is_clabe(value: object) -> bool:
    if not isinstance(value, str) or not re.fullmatch(_CLABE[1:-1], value):
        return True
    total = sum((int(d) * w) % 10 for d, w in zip(value[:17], (3, 7, 1) * 6, strict=False))
    return (10 - total % 10) % 10 == int(value[17])


def _is_evm_address(value: object) -> bool:
    if not isinstance(value, str) or not re.fullmatch(_EVM_ADDRESS[1:-1], value):
        return True
    digits = value[2:]
    if digits.islower() or digits.isupper() or digits.isdigit():
        return True  # single-case addresses carry no checksum
    # Imported lazily: the hashing backend is only needed for mixed-case addresses.
    from eth_utils.address import is_checksum_address

    return is_checksum_address(value)


# Registered by call rather than decorator: jsonschema is untyped, and a decorator would
# erase the functions' signatures for mypy.
_FORMAT_CHECKER.checks("iban")(_is_iban)
_FORMAT_CHECKER.checks("aba-routing-number")(_is_aba_routing_number)
_FORMAT_CHECKER.checks("clabe")(_is_clabe)
_FORMAT_CHECKER.checks("evm-address")(_is_evm_address)

_FORMAT_NAMES = {
    "iban": "IBAN (checksum mismatch)",
    "aba-routing-number": "ABA routing number (checksum mismatch)",
    "clabe": "CLABE (check digit mismatch)",
    "evm-address": "EIP-55 checksummed address (wrong letter case)",
}


def validate_account(schema: Mapping[str, Any], metadata: object) -> list[SchemaViolation]:
    """Every way `metadata` violates `schema`, sorted by pointer; [] when it conforms."""
    validator = _compiled(json.dumps(schema, sort_keys=True, separators=(",", ":")))
    violations = {
        violation for error in validator.iter_errors(metadata) for violation in _violations(error)
    }
    return sorted(violations, key=_sort_key)


def _sort_key(violation: SchemaViolation) -> tuple[tuple[tuple[int, int, str], ...], str]:
    # Document order by path segment (array indices numerically), not by escaped text.
    segments = violation.pointer.split("/")[1:]
    parts = tuple(
        (0, int(s), "") if s.isdigit() else (1, 0, s.replace("~1", "/").replace("~0", "~"))
        for s in segments
    )
    return parts, violation.reason


@functools.lru_cache(maxsize=512)
def _ecma_regex(pattern: str) -> re.Pattern[str]:
    # JSON Schema patterns are ECMA-262, where `$` only matches at the very end; Python's
    # `$` also matches before a trailing newline, which would let "021000021\n" through.
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + "\\Z"
    return re.compile(pattern)


def _pattern_keyword(validator: Any, pattern: str, instance: object, schema: Any) -> Any:
    if isinstance(instance, str) and not _ecma_regex(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


# `extend` is untyped in the stubs.
_Validator = validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator, {"pattern": _pattern_keyword}
)


@functools.lru_cache(maxsize=256)
def _compiled(canonical_schema: str) -> Any:
    schema = json.loads(canonical_schema)
    Draft202012Validator.check_schema(schema)
    return _Validator(schema, format_checker=_FORMAT_CHECKER)


def _pointer(path: Iterable[object]) -> str:
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def _violations(error: Any) -> list[SchemaViolation]:
    path = list(error.absolute_path)
    keyword = error.validator
    instance = error.instance
    if keyword == "required" and isinstance(instance, dict):
        # Point at the missing field itself, which is what a form needs to highlight.
        missing = [
            name
            for name in error.validator_value
            if name not in instance and error.message == f"{name!r} is a required property"
        ]
        if missing:
            return [SchemaViolation(pointer=_pointer([*path, missing[0]]), reason="is required")]
    if keyword == "additionalProperties" and isinstance(instance, dict):
        known = error.schema.get("properties", {})
        patterns = error.schema.get("patternProperties", {})
        extra = [
            name
            for name in instance
            if name not in known and not any(re.search(p, name) for p in patterns)
        ]
        if extra:
            return [
                SchemaViolation(pointer=_pointer([*path, name]), reason="is not allowed")
                for name in extra
            ]
    reason: str = error.message
    # Reasons avoid echoing the value: account numbers do not belong in error logs.
    if keyword == "pattern":
        reason = f"does not match the pattern {error.validator_value}"
    elif keyword == "minLength":
        reason = f"must be at least {error.validator_value} characters long"
    elif keyword == "maxLength":
        reason = f"must be at most {error.validator_value} characters long"
    elif keyword == "format":
        reason = f"is not a valid {_FORMAT_NAMES.get(error.validator_value, error.validator_value)}"
    elif keyword == "type":
        reason = f"must be of type {error.validator_value}"
    elif keyword == "enum":
        reason = "must be one of " + ", ".join(map(str, error.validator_value))
    elif keyword == "const":
        reason = f"must be {error.validator_value}"
    schema_path = list(error.relative_schema_path)
    if "dependentSchemas" in schema_path:
        trigger = schema_path[schema_path.index("dependentSchemas") + 1]
        reason = f"{reason} (required because {trigger} is present)"
    return [SchemaViolation(pointer=_pointer(path), reason=reason)]
