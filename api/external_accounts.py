"""POST /customers/external-accounts: a customer's source/destination account pair."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from api.auth import authenticate_customer
from api.body import read_json
from api.render import external_account_resource, json_resource
from api.schemas import CreateExternalAccounts, ExternalAccountPair
from api.services import services
from ramp.external_accounts.service import register_account_pair


async def create_external_accounts(request: Request) -> Response:
    customer = await authenticate_customer(request)
    body = await read_json(request, CreateExternalAccounts)
    async with services(request).db() as session:
        pair = await register_account_pair(
            session,
            customer,
            src=body.src,
            dest=body.dest,
            source=body.source,
            destination=body.destination,
        )
    return json_resource(
        ExternalAccountPair(
            source=external_account_resource(pair.source),
            destination=external_account_resource(pair.destination),
        ),
        status_code=201,
    )
