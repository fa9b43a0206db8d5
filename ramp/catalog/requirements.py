"""JSON Schemas for external-account metadata on a route.

The schemas are derived from the providers that serve the route, so they only accept
rails, countries and provider-specific fields that at least one of those providers can
use. The rail data lives in `rails`, the checksum formats in `formats`, and validation
against a schema in `validation`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from .currencies import currency_by_code
from .models import AccountSide, AccountType, Currency, ExtraFieldName, Provider, Rail
from .rails import (
    CHAINS,
    EXTRA_EXAMPLES,
    EXTRA_FIELDS,
    GENERIC_TAX_ID,
    GENERIC_TAX_ID_EXAMPLE,
    NOT_BLANK,
    RAILS,
    SEPA_EXAMPLES,
    TAX_ID_BY_COUNTRY,
    TAX_ID_EXAMPLES,
)

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

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
    chain = CHAINS[currency.blockchain]
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


@dataclass(frozen=True)
class _BankRoster:
    """What the providers serving one side of a route accept, by rail."""

    rails: list[Rail]
    countries: list[str]
    rail_countries: dict[Rail, list[str]]
    extras: list[ExtraFieldName]
    # Which rails accept each provider-specific field, and on which it is mandatory.
    extra_allowed: dict[ExtraFieldName, set[Rail]]
    extra_required: dict[Rail, set[ExtraFieldName]]


def _bank_roster(entries: list[tuple[Provider, AccountSide]]) -> _BankRoster:
    rails = [rail for rail in Rail if any(rail in s.rails for _, s in entries)]
    rail_countries = {
        rail: sorted({c for _, s in entries if rail in s.rails for c in s.countries})
        for rail in rails
    }
    # A field is mandatory if any serving provider needs it, so the account suits every
    # provider.
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
    return _BankRoster(
        rails=rails,
        countries=sorted({c for _, s in entries for c in s.countries}),
        rail_countries=rail_countries,
        extras=[name for name in ExtraFieldName if name in extra_allowed],
        extra_allowed=extra_allowed,
        extra_required=extra_required,
    )


def _bank_schema(
    currency: Currency,
    side: str,
    route: str,
    served_by: str,
    entries: list[tuple[Provider, AccountSide]],
) -> dict[str, Any]:
    roster = _bank_roster(entries)
    schema: dict[str, Any] = {
        "$schema": SCHEMA_DIALECT,
        "title": f"{currency.code} bank account ({side})",
        "description": (
            f"{side.capitalize()} {currency.name} bank account for {route}. {served_by} "
            "The identifiers required in accountIdentifier depend on rails."
        ),
        "type": "object",
        "additionalProperties": False,
        "properties": _bank_properties(currency, roster),
        "required": [
            "rails",
            "currency",
            "countryCode",
            "institutionName",
            "accountIdentifier",
            "beneficiary",
        ],
        "allOf": _rail_conditions(roster) + _tax_id_conditions(roster.countries),
    }
    # Provider-specific fields that only make sense on some rails (an intermediary bank
    # only exists for wires) pull in a rail restriction when present.
    dependent = {
        str(name): {"properties": {"rails": {"enum": [r for r in roster.rails if r in allowed]}}}
        for name in roster.extras
        if (allowed := roster.extra_allowed[name]) != set(roster.rails)
    }
    if dependent:
        schema["dependentSchemas"] = dependent
    schema["examples"] = _bank_examples(currency, roster)
    return schema


def _bank_properties(currency: Currency, roster: _BankRoster) -> dict[str, Any]:
    identifier_doc = "; ".join(
        f"{rail}: {', '.join(RAILS[rail].properties)}" for rail in roster.rails
    )
    properties: dict[str, Any] = {
        "rails": {
            "type": "string",
            "enum": list(roster.rails),
            "description": "Payment rail the account is reached through",
        },
        "currency": {"type": "string", "const": currency.code},
        "countryCode": {
            "type": "string",
            "enum": roster.countries,
            "description": "ISO 3166-1 alpha-2 country of the bank",
        },
        "institutionName": {
            "type": "string",
            "minLength": 1,
            "maxLength": 140,
            "pattern": NOT_BLANK,
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
                    "pattern": NOT_BLANK,
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
    for name in roster.extras:
        properties[name] = EXTRA_FIELDS[name]
    return properties


def _rail_conditions(roster: _BankRoster) -> list[dict[str, Any]]:
    conditions: list[dict[str, Any]] = []
    for rail in roster.rails:
        spec = RAILS[rail]
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
        if roster.rail_countries[rail] != roster.countries:
            then["properties"]["countryCode"] = {"enum": roster.rail_countries[rail]}
        required_extras = [name for name in roster.extras if name in roster.extra_required[rail]]
        if required_extras:
            then["required"] = [str(name) for name in required_extras]
        conditions.append({"if": _when("rails", rail), "then": then})
    return conditions


def _tax_id_conditions(countries: list[str]) -> list[dict[str, Any]]:
    # Exactly one tax-id pattern applies to any country, so a bad tax id is reported once.
    conditions: list[dict[str, Any]] = []
    generic = [c for c in countries if c not in TAX_ID_BY_COUNTRY]
    if generic:
        conditions.append(
            {
                "if": {
                    "properties": {"countryCode": {"enum": generic}},
                    "required": ["countryCode"],
                },
                "then": _tax_id_rule(GENERIC_TAX_ID, "National tax identification number"),
            }
        )
    for country in countries:
        if country in TAX_ID_BY_COUNTRY:
            pattern, kind = TAX_ID_BY_COUNTRY[country]
            conditions.append(
                {"if": _when("countryCode", country), "then": _tax_id_rule(pattern, kind)}
            )
    return conditions


def _tax_id_rule(pattern: str, kind: str) -> dict[str, Any]:
    return {
        "properties": {
            "beneficiary": {"properties": {"taxId": {"pattern": pattern, "description": kind}}}
        }
    }


def _when(prop: str, value: str) -> dict[str, Any]:
    # `required` keeps the condition from holding vacuously when the property is absent.
    return {"properties": {prop: {"const": value}}, "required": [prop]}


def _bank_examples(currency: Currency, roster: _BankRoster) -> list[dict[str, Any]]:
    examples: list[dict[str, Any]] = []
    for rail in roster.rails:
        spec = RAILS[rail]
        candidates = roster.rail_countries[rail]
        if rail is Rail.SEPA:
            country = next((c for c in SEPA_EXAMPLES if c in candidates), candidates[0])
            iban, bic, institution = SEPA_EXAMPLES.get(country, SEPA_EXAMPLES["DE"])
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
                "taxId": TAX_ID_EXAMPLES.get(country, GENERIC_TAX_ID_EXAMPLE),
            },
        }
        for name in roster.extras:
            if name in roster.extra_required[rail]:
                example[str(name)] = dict(EXTRA_EXAMPLES[name])
        examples.append(example)
        optional = [
            name
            for name in roster.extras
            if rail in roster.extra_allowed[name] and name not in roster.extra_required[rail]
        ]
        if optional:
            # A second example shows the optional provider-specific fields filled in.
            fuller = json.loads(json.dumps(example))
            for name in optional:
                fuller[str(name)] = dict(EXTRA_EXAMPLES[name])
            examples.append(fuller)
    return examples
