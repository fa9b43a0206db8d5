"""The Bridge simulator's exchange rates (`GET /v0/exchange_rates?from=&to=`).

Bridge quotes fiat pairs only (a stablecoin goes by its fiat, `usd` for USDC), in
lower-case codes, with a mid-market rate and the two sides of its spread as decimal
strings: `buy_rate` (units of `to` received per `from`) and `sell_rate` (units of `to`
paid per `from`). A pair it does not price is a 400.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

# (from, to) -> (midmarket, buy, sell): fixed, so tests can compute the expected quote.
DEFAULT_RATES: dict[tuple[str, str], tuple[str, str, str]] = {
    ("usd", "eur"): ("0.92", "0.9150", "0.9250"),
    ("usd", "mxn"): ("18.00", "17.9000", "18.1000"),
    ("eur", "usd"): ("1.087", "1.0810", "1.0930"),
}


def exchange_rates(
    rates: dict[tuple[str, str], tuple[str, str, str]], request: Request
) -> Response:
    source = request.query_params.get("from", "")
    target = request.query_params.get("to", "")
    found = rates.get((source, target))
    if found is None:
        body: dict[str, Any] = {
            "code": "invalid_parameters",
            "message": f"exchange rate from {source!r} to {target!r} is not supported",
            "source": {"location": "query", "key": "to"},
        }
        return JSONResponse(body, status_code=400)
    mid, buy, sell = found
    return JSONResponse(
        {
            "from": source,
            "to": target,
            "midmarket_rate": mid,
            "buy_rate": buy,
            "sell_rate": sell,
            "updated_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        }
    )
