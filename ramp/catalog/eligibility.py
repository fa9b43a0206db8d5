"""Which providers can move money between a given pair of external accounts.

A provider is eligible when one of its corridors matches both accounts on every
dimension the API contract lists: currency code, account type, rail and country (the
last two only for bank accounts; crypto addresses have neither).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from .models import AccountSide, AccountType, Corridor, Provider, Rail


class AccountFacts(BaseModel):
    """The parts of an external account that provider matching looks at."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    currency_code: str
    account_type: AccountType
    rail: Rail | None = None
    country_code: str | None = None

    @classmethod
    def from_metadata(
        cls, currency_code: str, account_type: AccountType, metadata: Mapping[str, Any]
    ) -> AccountFacts:
        """Facts of a stored external account; metadata uses the schema's field names.

        Raises ValueError for a rail name the catalog does not know, which only happens
        when the metadata bypassed schema validation.
        """
        if account_type is not AccountType.BANK_ACCOUNT:
            return cls(currency_code=currency_code, account_type=account_type)
        rail = metadata.get("rails")
        country = metadata.get("countryCode")
        return cls(
            currency_code=currency_code,
            account_type=account_type,
            rail=Rail(rail) if rail is not None else None,
            country_code=str(country) if country is not None else None,
        )


def _side_mismatches(label: str, side: AccountSide, facts: AccountFacts) -> tuple[int, list[str]]:
    """Reasons one account does not fit one corridor side, and how fundamental they are.

    Currency and account-type mismatches count as fundamental: when they occur the
    rail and country are not compared, since they would only repeat the same problem.
    """
    if facts.currency_code not in side.currencies:
        return 1, [f"{label} currency {facts.currency_code} not supported"]
    if facts.account_type is not side.account_type:
        return 1, [f"{label} account type {facts.account_type} not supported"]
    if side.account_type is not AccountType.BANK_ACCOUNT:
        return 0, []
    reasons: list[str] = []
    if facts.rail is None:
        reasons.append(f"{label} rail missing")
    elif facts.rail not in side.rails:
        reasons.append(f"{label} rail {facts.rail} not supported")
    if facts.country_code is None:
        reasons.append(f"{label} country missing")
    elif facts.country_code not in side.countries:
        reasons.append(f"{label} country {facts.country_code} not supported")
    return 0, reasons


def _corridor_mismatches(
    corridor: Corridor, source: AccountFacts, destination: AccountFacts
) -> tuple[tuple[int, int], list[str]]:
    src_weight, src_reasons = _side_mismatches("source", corridor.source, source)
    dest_weight, dest_reasons = _side_mismatches("destination", corridor.destination, destination)
    reasons = src_reasons + dest_reasons
    return (src_weight + dest_weight, len(reasons)), reasons


def matching_corridor(
    provider: Provider, source: AccountFacts, destination: AccountFacts
) -> Corridor | None:
    """The first corridor of `provider` that serves the pair; it carries the amount limits."""
    for corridor in provider.corridors:
        _, reasons = _corridor_mismatches(corridor, source, destination)
        if not reasons:
            return corridor
    return None


def ineligibility_reasons(
    provider: Provider, source: AccountFacts, destination: AccountFacts
) -> list[str]:
    """[] when the provider can serve the pair, otherwise why not.

    The reasons come from the closest corridor (fewest currency/account-type
    mismatches, then fewest mismatches overall, then catalog order), which is the one
    a user is most likely to have meant.
    """
    best: tuple[tuple[int, int], list[str]] | None = None
    for corridor in provider.corridors:
        score, reasons = _corridor_mismatches(corridor, source, destination)
        if not reasons:
            return []
        if best is None or score < best[0]:
            best = (score, reasons)
    if best is None:
        return [f"provider {provider.code} offers no corridors"]
    return best[1]


def eligible_providers(
    providers: Sequence[Provider], source: AccountFacts, destination: AccountFacts
) -> tuple[list[Provider], dict[str, list[str]]]:
    """Eligible providers in the given (catalog) order, and reasons by code for the rest."""
    eligible: list[Provider] = []
    rejected: dict[str, list[str]] = {}
    for provider in providers:
        reasons = ineligibility_reasons(provider, source, destination)
        if reasons:
            rejected[provider.code] = reasons
        else:
            eligible.append(provider)
    return eligible, rejected
