"""The routes of what API clients of a ramp expect beyond the spec (issue 17): the
transaction as a resource, lists for reconciliation, quotes and cancellation. Part of
the one route table of api/routes.py, kept here so each module stays readable."""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute

from api import schemas
from api.idempotency import idempotent
from api.intents import cancel_intent, get_transaction
from api.lists import list_customers, list_external_accounts, search_project_intents
from api.operations import (
    CURSOR,
    IDEMPOTENCY_KEY,
    LIMIT,
    REPLAYED_HEADERS,
    ApiRoute,
    Operation,
    path_parameter,
    query_currency,
    query_filter,
    query_timestamp,
)
from api.quotes import get_quotes
from api.schemas.quotes import QuotesResource


def _query(name: str, description: str, required: bool = False) -> dict[str, Any]:
    return {
        "name": name,
        "in": "query",
        "required": required,
        "description": description,
        "schema": {"type": "string"},
    }


# Before `GET /intent/{id}` in the route table: `/intent/quote` is not an intent id.
QUOTE_ROUTES: list[BaseRoute] = [
    ApiRoute(
        "GET",
        "/intent/quote",
        get_quotes,
        Operation(
            "getQuotes",
            "Indicative quotes for a route from every provider of the project that serves it, "
            "fetched concurrently; providers that fail or answer too late are in `unavailable`. "
            "Each parameter at most once",
            auth="basic",
            status=200,
            response=QuotesResource,
            parameters=(
                query_currency("srcCurrencyCode", "Source currency code"),
                query_currency("destCurrencyCode", "Destination currency code"),
                _query("srcAmount", "Amount in the source currency (decimal string)", True),
                {
                    **_query("countryCode", "Country of the bank account (ISO 3166-1 alpha-2)"),
                    "schema": {"type": "string", "pattern": "^[A-Z]{2}$"},
                },
                _query("rails", "Bank rails, comma-separated (ACH,WIRE)"),
                _query(
                    "providerId",
                    "Only this provider, one of the project's (the `id` of GET /providers)",
                ),
            ),
            errors=(400, 401),
        ),
    ),
]

CLIENT_ROUTES: list[BaseRoute] = [
    ApiRoute(
        "GET",
        "/customers",
        list_customers,
        Operation(
            "listCustomers",
            "The project's customers, newest first (`accessToken` is null); the next page's "
            "URL is in the `Link` header",
            auth="basic",
            status=200,
            response="list",
            item=schemas.CustomerResource,
            parameters=(
                LIMIT,
                CURSOR,
                query_filter("id", "The project's own customer id (the `id` of POST /customers)"),
            ),
            errors=(400, 401),
            headers=(("Link", 'The next page: `</v1/customers?limit=N&cursor=...>; rel="next"`'),),
        ),
    ),
    ApiRoute(
        "GET",
        "/customers/external-accounts",
        list_external_accounts,
        Operation(
            "listExternalAccounts",
            "The customer's registered external accounts, newest first",
            auth="bearer",
            status=200,
            response="list",
            item=schemas.ExternalAccountResource,
            parameters=(LIMIT, CURSOR),
            errors=(400, 401),
            headers=(("Link", 'The next page: `<...?limit=N&cursor=...>; rel="next"`'),),
        ),
    ),
    ApiRoute(
        "GET",
        "/intents",
        search_project_intents,
        Operation(
            "searchIntents",
            "The project's intents, newest first, filtered; the next page's URL is in the "
            "`Link` header",
            auth="basic",
            status=200,
            response="list",
            item=schemas.IntentEnvelope,
            parameters=(
                LIMIT,
                CURSOR,
                query_filter(
                    "status", "Intent status, or several comma-separated (PENDING,PROCESSING)"
                ),
                query_filter("customerId", "Customer id (ours: `intent.customerId`)"),
                query_filter(
                    "providerId", "Provider id (the `id` of GET /providers, as in POST /intent)"
                ),
                query_timestamp("createdFrom", "Created at or after (ISO 8601 with offset)"),
                query_timestamp("createdTo", "Created before"),
                query_timestamp("updatedFrom", "Last changed at or after"),
                query_timestamp("updatedTo", "Last changed before"),
            ),
            errors=(400, 401),
            headers=(("Link", 'The next page: `</v1/intents?limit=N&cursor=...>; rel="next"`'),),
        ),
    ),
    ApiRoute(
        "GET",
        "/intent/{intentId}/transaction",
        get_transaction,
        Operation(
            "getIntentTransaction",
            "The intent's transaction alone, with its deposit instructions (404 until it exists)",
            auth="bearer",
            status=200,
            response=schemas.TransactionResource,
            parameters=(path_parameter("intentId", "Intent id"),),
            errors=(401, 404),
        ),
    ),
    ApiRoute(
        "POST",
        "/intent/{intentId}/cancel",
        idempotent(cancel_intent, "bearer"),
        Operation(
            "cancelIntent",
            "Cancel the intent until its deposit is received: the provider voids the deposit "
            "instructions; the intent and its transaction end CANCELLED",
            auth="bearer",
            status=200,
            request=schemas.ExecuteIntent,
            body_required=False,
            response=schemas.IntentEnvelope,
            parameters=(path_parameter("intentId", "Intent id"), IDEMPOTENCY_KEY),
            errors=(400, 401, 404, 409, 422, 502, 503),
            headers=REPLAYED_HEADERS,
        ),
    ),
]
