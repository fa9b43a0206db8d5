"""How `select_provider` routes a payment among its eligible providers (issue 26), apart
from the intent activities: DOWN accounts out (their reasons kept for the 400), the
held quote's provider pinned, and the rest ranked as the project routes
(ramp/routing/strategy.py; BEST_PRICE asks the providers' quotes). What it reads of the
project (accounts, health, strategy) comes in one statement (ramp/routing/candidates.py),
in the activity's one session."""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.adapters.registry import Connectors
from ramp.catalog import AccountFacts, Provider, provider_by_code
from ramp.errors import DomainError, IntentError, InvalidInput
from ramp.intents.models import IntentRequest
from ramp.projects import RoutingAccount
from ramp.quotes.ranking import held_quote
from ramp.quotes.selection import provider_nets
from ramp.routing.candidates import ProjectRoute
from ramp.routing.health import claim_due_probes
from ramp.routing.strategy import Strategy, rank_accounts
from ramp.security.encryption import SecretBox
from ramp.temporal import application_error


@dataclass
class Routed:
    # The accounts of the eligible providers, not DOWN, in the order the project routes
    # (a project may hold several accounts of one provider: each is a candidate).
    ranked: list[RoutingAccount]
    # Why each other provider of the project cannot serve the payment now (per account
    # where it has several).
    rejected: dict[str, list[str]]
    any_down: bool = False
    # The provider asked for: the request's providerId, or its held quote's.
    preferred_id: str | None = None


def _why(account: RoutingAccount, reason: str, several: bool) -> str:
    return f"account {account.name!r}: {reason}" if several else reason


async def route_payment(
    session: AsyncSession,
    request: IntentRequest,
    route: ProjectRoute,
    eligible: list[Provider],
    rejected: dict[str, list[str]],
    facts: tuple[AccountFacts, AccountFacts],
) -> Routed:
    """The accounts of `eligible` (catalog order) in selection order, less the DOWN ones
    and those an intent already failed over from (`request.excluded_accounts`; older
    runs name providers: `excluded_providers`); `route` as `project_route` read it in
    `session`, which claims a due probe and reads a held quote. `rank_by_price` then
    orders them for BEST_PRICE, outside the session (it asks the providers' quotes)."""
    codes = {p.code for p in eligible}
    candidates = [a for a in route.accounts if a.provider.code in codes]
    _, down = await claim_due_probes(
        session, {a.account_id: route.health[a.account_id] for a in candidates}
    )
    preferred = request.provider_id
    if request.quote_id is not None:
        preferred = await _quoted_provider(session, request, facts, eligible, preferred)
    per_provider: dict[str, int] = {}
    for account in candidates:
        per_provider[account.provider.code] = per_provider.get(account.provider.code, 0) + 1
    out: dict[str, list[str]] = {}
    ranked = []
    for account in candidates:
        code, several = account.provider.code, per_provider[account.provider.code] > 1
        if account.account_id in down:
            out.setdefault(code, []).append(_why(account, down[account.account_id], several))
        elif account.account_id in request.excluded_accounts or code in request.excluded_providers:
            out.setdefault(code, []).append(_why(account, "failed over from it already", several))
        else:
            ranked.append(account)
    routed = {a.provider.code for a in ranked}
    rejected.update((code, reasons) for code, reasons in out.items() if code not in routed)
    return Routed(ranked, rejected, bool(down), preferred)


async def rank_by_price(
    db: async_sessionmaker[AsyncSession],
    request: IntentRequest,
    route: ProjectRoute,
    routed: Routed,
    facts: tuple[AccountFacts, AccountFacts],
    *,
    connectors: Connectors,
    secret_box: SecretBox | None,
) -> Routed:
    """`routed` as a BEST_PRICE project ranks it (the providers' quotes, then health);
    as it is for FIRST_ELIGIBLE, a provider asked for, or a single account."""
    ranked = routed.ranked
    if route.strategy is not Strategy.BEST_PRICE or routed.preferred_id is not None:
        return routed
    if len(ranked) < 2:
        return routed
    src, dest = facts
    nets: dict[str, Decimal] = {}
    if len({a.provider.code for a in ranked}) > 1:
        nets = await provider_nets(
            db,
            request.project_id,
            (src.currency_code, dest.currency_code),
            request.amount,
            (src.rail or dest.rail, src.country_code or dest.country_code),
            connectors=connectors,
            secret_box=secret_box,
        )
    states = {a.account_id: route.health[a.account_id].state for a in ranked}
    return replace(routed, ranked=rank_accounts(route.strategy, ranked, nets, states))


async def _quoted_provider(
    session: AsyncSession,
    request: IntentRequest,
    facts: tuple[AccountFacts, AccountFacts],
    eligible: list[Provider],
    provider_id: str | None,
) -> str | None:
    """The held quote's provider (its id), once the quote is checked: live, this
    project's, for this payment's route and amount."""
    assert request.quote_id is not None
    try:
        quote = await held_quote(session, request.project_id, request.quote_id)
    except DomainError as error:
        raise application_error(error) from None
    src, dest = facts
    same = (
        quote.source_currency == src.currency_code
        and quote.destination_currency == dest.currency_code
        and quote.source_amount == request.amount
        and quote.rail in (src.rail, dest.rail)
    )
    by_code = {p.code: p for p in eligible}
    quoted = by_code.get(quote.provider_code)
    if not same or (provider_id is not None and (quoted is None or quoted.id != provider_id)):
        raise application_error(
            InvalidInput(
                IntentError.QUOTE_NOT_FOUND,
                "the quote is for another payment: its route, rail, amount or provider "
                "differs from this intent's",
                {"fields": [{"pointer": "/quoteId", "reason": "is for another payment"}]},
            )
        )
    if quoted is None:
        # Not eligible for these accounts: refused with its reasons (PROVIDER_NOT_ELIGIBLE).
        known = provider_by_code(quote.provider_code)
        return known.id if known is not None else quote.provider_code
    return quoted.id
