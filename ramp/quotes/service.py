"""Indicative quotes for a route from every provider of the project that serves it.

A sandbox project is quoted by the mock providers (their documented rate table); a
production project by the connector of each of its healthy provider accounts, from the
provider's own rates (ramp/quotes/accounts.py). Each (provider, rail) is asked
concurrently, within a time budget of its own: a slow or failing provider is left out
and named in `unavailable`, never fatal. The project's partner fee is added to each
provider's fees and taken from what arrives.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.adapters.contract import NotSupported
from ramp.adapters.registry import Connectors
from ramp.catalog import Corridor, Currency, MovementType, Provider, Rail, currency_by_code
from ramp.config import Environment
from ramp.db.tables import Project
from ramp.errors import IntentError, InvalidInput, RequestError
from ramp.money import AmountProblem, Money
from ramp.projects import NO_PROVIDER_ACCOUNT, routing_accounts
from ramp.quotes.accounts import account_quoters
from ramp.quotes.models import ProviderQuote, Quoter, RailQuoteRequest
from ramp.quotes.partner_fee import after_partner_fee, partner_fee, partner_fee_bps
from ramp.quotes.ranking import held, hold
from ramp.routing import behaviour
from ramp.routing.health import Health, provider_health, record_call
from ramp.routing.strategy import rank
from ramp.security.encryption import SecretBox

logger = logging.getLogger("ramp.quotes")

# How long one provider may take to quote before it is left out.
QUOTE_BUDGET_SECONDS = 2.0


@dataclass(frozen=True)
class QuoteQuery:
    source_currency: str
    destination_currency: str
    amount: str  # as the client wrote it, in the source currency
    country_code: str | None = None
    rails: tuple[Rail, ...] = ()
    provider_id: str | None = None


@dataclass(frozen=True)
class RampQuote:
    provider: Provider
    movement_type: MovementType
    rail: Rail
    quote: ProviderQuote
    partner_fee: Decimal
    total_fee: Decimal
    # What arrives after every fee, the partner's included.
    destination_amount: Decimal
    # As the project routes (issue 26, ramp/quotes/ranking.py): the provider account's
    # health, whether POST /intent would pick this quote, and its id for POST /intent.
    status: Health = Health.HEALTHY
    selected: bool = False
    quote_id: str | None = None


@dataclass(frozen=True)
class UnavailableQuote:
    provider: Provider
    rail: Rail
    # TIMEOUT, PROVIDER_ERROR, NOT_SUPPORTED, AMOUNT_OUT_OF_RANGE, AMOUNT_TOO_SMALL
    reason: str
    message: str


@dataclass(frozen=True)
class Quotes:
    quotes: list[RampQuote]
    unavailable: list[UnavailableQuote]


@dataclass(frozen=True)
class _Candidate:
    provider: Provider
    corridor: Corridor
    rail: Rail


async def project_quotes(
    db: async_sessionmaker[AsyncSession],
    project: Project,
    query: QuoteQuery,
    *,
    sandbox_quoters: Mapping[str, Quoter],
    secret_box: SecretBox | None,
    connectors: Connectors | None = None,
    budget_seconds: float = QUOTE_BUDGET_SECONDS,
    routed: bool = True,
) -> Quotes:
    """The quotes of `project`'s providers, asked where its environment says; `routed`:
    ranked and held as GET /v1/intent/quote shows them (else as asked, unheld)."""
    quoters: Mapping[str, Quoter] = sandbox_quoters
    if project.environment == Environment.SANDBOX:
        async with db() as session:
            modes = await behaviour.project_behaviours(session, project.id)
        quoters = behaviour.quoters_as_set(sandbox_quoters, modes)
    if project.environment == Environment.PRODUCTION:
        assert secret_box is not None, "a production project's accounts need the key"
        _route(query)  # an unknown currency is refused before any account is opened
        async with db() as session:
            quoters = await account_quoters(
                session, project.id, secret_box=secret_box, connectors=connectors
            )
    return await quote_route(
        db, quoters, project.id, query, budget_seconds=budget_seconds, routed=routed
    )


async def quote_route(
    db: async_sessionmaker[AsyncSession],
    quoters: Mapping[str, Quoter],
    project_id: str,
    query: QuoteQuery,
    *,
    budget_seconds: float = QUOTE_BUDGET_SECONDS,
    routed: bool = True,
) -> Quotes:
    """Quotes of every provider of the project that serves the route (and the filters)."""
    source, destination = _route(query)
    try:
        amount = Money.parse(query.amount, source.code).amount
    except AmountProblem as problem:
        raise InvalidInput(
            IntentError.AMOUNT_VALIDATION_ERROR, problem.message, problem.details
        ) from None
    async with db() as session:
        routing = await routing_accounts(session, project_id)
        providers = [provider for provider, _ in routing]
        bps = await partner_fee_bps(session, project_id)
        # A provider with several accounts: the health of its healthiest one (the quote is
        # asked through its first account by priority).
        states = {p.code: h.state for p, h in await provider_health(session, project_id)}
    if query.provider_id is not None and query.provider_id not in {p.id for p in providers}:
        raise InvalidInput(
            RequestError.VALIDATION_ERROR,
            "providerId is not one of the project's providers (GET /v1/providers)",
            {"fields": [{"pointer": "/providerId", "reason": "is not a provider of the project"}]},
        )
    serving = [p for p in providers if _corridors(p, source.code, destination.code)]
    if not serving:
        raise InvalidInput(
            "UNSUPPORTED_ROUTE",
            f"no provider of the project serves {source.code} to {destination.code}"
            + (f": {NO_PROVIDER_ACCOUNT}" if not providers else ""),
            {"src": source.code, "dest": destination.code},
        )
    candidates = [
        _Candidate(provider, corridor, rail)
        for provider in serving
        if query.provider_id in (None, provider.id)
        for corridor in _corridors(provider, source.code, destination.code)
        for rail in _rails(corridor, query)
    ]
    answers = await asyncio.gather(
        *(_quote(quoters, c, source, destination, amount, bps, budget_seconds) for c in candidates)
    )
    await _count_calls(db, {p.code: account for p, account in routing}, answers)
    found = [a for a in answers if isinstance(a, RampQuote)]
    return Quotes(
        quotes=await _as_routed(db, project_id, providers, states, found) if routed else found,
        unavailable=[a for a in answers if isinstance(a, UnavailableQuote)],
    )


# The quote outcomes that are the provider's own failure (counted against its health).
_FAILED_CALLS = ("TIMEOUT", "PROVIDER_ERROR")


async def _count_calls(
    db: async_sessionmaker[AsyncSession],
    accounts: Mapping[str, str],
    answers: Sequence[RampQuote | UnavailableQuote],
) -> None:
    """Each quote asked is a call of the provider account: counted in its health
    (ramp/routing/health.py). Answers left out before any call (out of range, not
    quoted) count for nothing."""
    for answer in answers:
        account = accounts.get(answer.provider.code)
        if account is None:
            continue
        if isinstance(answer, RampQuote):
            await record_call(db, account, None)
        elif answer.reason in _FAILED_CALLS:
            await record_call(db, account, f"quote: {answer.message}")


async def _as_routed(
    db: async_sessionmaker[AsyncSession],
    project_id: str,
    providers: list[Provider],
    states: dict[str, Health],
    quotes: list[RampQuote],
) -> list[RampQuote]:
    """The quotes ranked as the project routes, each held (its `quoteId`), the one
    `POST /intent` would pick `selected` (the first whose provider is not DOWN)."""
    holds = [
        held(
            project_id,
            q.provider.code,
            q.rail.value,
            (q.quote.source_currency, q.quote.destination_currency),
            (q.quote.source_amount, q.destination_amount),
            q.quote.expires_at,
        )
        for q in quotes
    ]
    strategy = await hold(db, project_id, holds)
    order = rank(
        strategy,
        list(range(len(quotes))),
        catalog_order={p.code: i for i, p in enumerate(providers)},
        code_of={i: q.provider.code for i, q in enumerate(quotes)},
        net={i: q.destination_amount for i, q in enumerate(quotes)},
        health=states,
    )
    chosen = next((i for i in order if states[quotes[i].provider.code] is not Health.DOWN), None)
    return [
        dataclasses.replace(
            quotes[i],
            status=states[quotes[i].provider.code],
            selected=i == chosen,
            quote_id=holds[i].id,
        )
        for i in order
    ]


def _route(query: QuoteQuery) -> tuple[Currency, Currency]:
    source = currency_by_code(query.source_currency)
    destination = currency_by_code(query.destination_currency)
    if source is None or destination is None:
        unknown = query.source_currency if source is None else query.destination_currency
        raise InvalidInput(
            "UNSUPPORTED_ROUTE",
            f"unknown currency code {unknown!r}",
            {"src": query.source_currency, "dest": query.destination_currency},
        )
    return source, destination


def _corridors(provider: Provider, src: str, dest: str) -> list[Corridor]:
    return [
        c
        for c in provider.corridors
        if src in c.source.currencies and dest in c.destination.currencies
    ]


def _rails(corridor: Corridor, query: QuoteQuery) -> list[Rail]:
    bank = corridor.source if corridor.type is MovementType.ONRAMP else corridor.destination
    if query.country_code is not None and query.country_code not in bank.countries:
        return []
    return [rail for rail in bank.rails if not query.rails or rail in query.rails]


async def _quote(
    quoters: Mapping[str, Quoter],
    candidate: _Candidate,
    source: Currency,
    destination: Currency,
    amount: Decimal,
    bps: int,
    budget_seconds: float,
) -> RampQuote | UnavailableQuote:
    provider, rail = candidate.provider, candidate.rail

    def unavailable(reason: str, message: str) -> UnavailableQuote:
        return UnavailableQuote(provider, rail, reason, message)

    limits = candidate.corridor.limits.get(source.code)
    if limits is not None and not limits.minimum <= amount <= limits.maximum:
        return unavailable(
            "AMOUNT_OUT_OF_RANGE",
            f"{provider.name} takes {limits.minimum} to {limits.maximum} {source.code} on {rail}",
        )
    quoter = quoters.get(provider.code)
    if quoter is None:
        return unavailable("NOT_SUPPORTED", f"{provider.name} does not quote")
    request = RailQuoteRequest(
        source_currency=source.code,
        destination_currency=destination.code,
        amount=amount,
        movement_type=candidate.corridor.type,
        rail=rail,
    )
    try:
        quote = await asyncio.wait_for(quoter.quote(request), timeout=budget_seconds)
    except TimeoutError:
        return unavailable("TIMEOUT", f"{provider.name} did not answer within {budget_seconds} s")
    except NotSupported:
        return unavailable("NOT_SUPPORTED", f"{provider.name} does not quote this route")
    except Exception as error:  # any failure of a provider is its own, never the caller's
        logger.warning("quote of %s on %s failed: %s", provider.code, rail, error)
        return unavailable("PROVIDER_ERROR", f"{provider.name} could not quote")
    partner = partner_fee(amount, bps, source.decimals)
    arriving = after_partner_fee(
        quote.destination_amount, partner, quote.exchange_rate, destination.decimals
    )
    if arriving <= 0:
        return unavailable("AMOUNT_TOO_SMALL", "the fees exceed the amount")
    return RampQuote(
        provider=provider,
        movement_type=candidate.corridor.type,
        rail=rail,
        quote=quote,
        partner_fee=partner,
        total_fee=quote.fee + partner,
        destination_amount=arriving,
    )
