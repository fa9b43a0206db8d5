"""GET /intent/quote: indicative quotes from the project's providers (ramp/quotes)."""

from __future__ import annotations

import re
from functools import cache

from starlette.requests import Request
from starlette.responses import Response

from api.auth import authenticate_project
from api.errors import bad_request
from api.render import json_resource
from api.schemas.quotes import (
    QuoteFeesResource,
    QuoteResource,
    QuotesResource,
    UnavailableQuoteResource,
)
from api.services import services
from ramp.adapters.registry import Connectors
from ramp.catalog import Rail
from ramp.quotes.accounts import sandbox_quoters
from ramp.quotes.models import Quoter
from ramp.quotes.service import QuoteQuery, RampQuote, UnavailableQuote, project_quotes
from ramp.security.encryption import SecretBox

_REQUIRED = ("srcCurrencyCode", "destCurrencyCode", "srcAmount")
_OPTIONAL = ("countryCode", "rails", "providerId")
_RAILS = {rail.value for rail in Rail}
_COUNTRY_CODE = re.compile(r"[A-Z]{2}")


@cache
def _quoters() -> dict[str, Quoter]:
    return sandbox_quoters()


async def get_quotes(request: Request) -> Response:
    project = await authenticate_project(request)
    params = _params(request)
    rails = params["rails"].split(",") if "rails" in params else []
    if any(rail not in _RAILS for rail in rails):
        raise bad_request(
            "VALIDATION_ERROR",
            f"rails must be one or more (comma-separated) of {', '.join(sorted(_RAILS))}",
            {"fields": [{"pointer": "/rails", "reason": "is not one of the allowed values"}]},
        )
    query = QuoteQuery(
        source_currency=params["srcCurrencyCode"],
        destination_currency=params["destCurrencyCode"],
        amount=params["srcAmount"],
        country_code=params.get("countryCode"),
        rails=tuple(Rail(rail) for rail in rails),
        provider_id=params.get("providerId"),
    )
    app = services(request)
    found = await project_quotes(
        app.db,
        project,
        query,
        sandbox_quoters=_quoters(),
        secret_box=SecretBox.from_settings(app.settings),
        connectors=Connectors.from_settings(app.settings),
    )
    return json_resource(
        QuotesResource(
            quotes=[_quote(q) for q in found.quotes],
            unavailable=[_unavailable(u) for u in found.unavailable],
        )
    )


def _params(request: Request) -> dict[str, str]:
    repeated = [
        name for name in (*_REQUIRED, *_OPTIONAL) if len(request.query_params.getlist(name)) > 1
    ]
    if repeated:
        # Which of the values would be meant is a guess we do not make.
        raise bad_request(
            "VALIDATION_ERROR",
            f"query parameter {repeated[0]} is given more than once",
            {"fields": [{"pointer": f"/{name}", "reason": "is repeated"} for name in repeated]},
        )
    params = {
        name: value
        for name in (*_REQUIRED, *_OPTIONAL)
        if (value := request.query_params.get(name)) is not None
    }
    missing = [name for name in _REQUIRED if not params.get(name)]
    if missing:
        raise bad_request(
            "VALIDATION_ERROR",
            f"query parameters {', '.join(_REQUIRED)} are required",
            {"fields": [{"pointer": f"/{name}", "reason": "is required"} for name in missing]},
        )
    too_long = [name for name, value in params.items() if len(value) > 200]
    if too_long:
        raise bad_request(
            "VALIDATION_ERROR",
            "query parameters are at most 200 characters",
            {"fields": [{"pointer": f"/{n}", "reason": "is too long"} for n in too_long]},
        )
    country = params.get("countryCode")
    if country is not None and not _COUNTRY_CODE.fullmatch(country):
        raise bad_request(
            "VALIDATION_ERROR",
            "countryCode must be an ISO 3166-1 alpha-2 code (two capital letters)",
            {"fields": [{"pointer": "/countryCode", "reason": "is not a country code"}]},
        )
    return params


def _quote(found: RampQuote) -> QuoteResource:
    quote = found.quote
    return QuoteResource(
        provider_id=found.provider.id,
        provider_code=found.provider.code,
        type=found.movement_type,
        rail=found.rail,
        src_currency_code=quote.source_currency,
        dest_currency_code=quote.destination_currency,
        src_amount=quote.source_amount,
        dest_amount=found.destination_amount,
        exchange_rate=quote.exchange_rate,
        fees=QuoteFeesResource(
            currency_code=quote.source_currency,
            network_fee=quote.network_fee,
            processing_fee=quote.processing_fee,
            partner_fee=found.partner_fee,
            total_fee=found.total_fee,
        ),
        expires_at=quote.expires_at,
        has_indicative_price=quote.indicative,
        quote_id=found.quote_id,
        selected=found.selected,
        provider_status=found.status.value,
    )


def _unavailable(missing: UnavailableQuote) -> UnavailableQuoteResource:
    return UnavailableQuoteResource(
        provider_id=missing.provider.id,
        provider_code=missing.provider.code,
        rail=missing.rail,
        reason=missing.reason,
        message=missing.message,
    )
