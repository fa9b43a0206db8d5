"""POST /customers/external-accounts: a customer's source/destination account pair."""

from __future__ import annotations

import uuid
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from api.auth import authenticate_customer
from api.body import read_json
from api.catalog import requirements_for_route
from api.errors import bad_request
from api.render import external_account_resource, json_resource
from api.schemas import CreateExternalAccounts, ExternalAccountPair
from api.services import services
from ramp.catalog import currency_by_code, validate_account
from ramp.db.tables import ExternalAccount, Project
from ramp.projects import project_providers


async def create_external_accounts(request: Request) -> Response:
    async with services(request).db() as session:
        customer = await authenticate_customer(request, session)
        body = await read_json(request, CreateExternalAccounts)
        project = await session.get(Project, customer.project_id)
        assert project is not None  # customers are never orphaned (foreign key)
        providers = await project_providers(session, project)
        requirements = requirements_for_route(body.src, body.dest, providers)
        violations = [
            {"pointer": f"/{side}{violation.pointer}", "reason": violation.reason}
            for side, schema, metadata in (
                ("source", requirements.source, body.source),
                ("destination", requirements.destination, body.destination),
            )
            for violation in validate_account(schema, metadata)
        ]
        if violations:
            raise bad_request(
                "SCHEMA_VALIDATION_FAILED",
                "external account metadata does not match the requirements schema for "
                f"{body.src} -> {body.dest}",
                {"fields": violations},
            )
        source = _account(customer.id, project.id, body.src, body.source)
        destination = _account(customer.id, project.id, body.dest, body.destination)
        session.add_all([source, destination])
        # Both accounts or neither: one transaction.
        await session.commit()
    pair = ExternalAccountPair(
        source=external_account_resource(source),
        destination=external_account_resource(destination),
    )
    return json_resource(pair, status_code=201)


def _account(
    customer_id: str, project_id: str, currency_code: str, metadata: dict[str, Any]
) -> ExternalAccount:
    currency = currency_by_code(currency_code)
    assert currency is not None  # the route's schemas only exist for catalog currencies
    return ExternalAccount(
        id=str(uuid.uuid4()),
        project_id=project_id,
        customer_id=customer_id,
        type=currency.account_type.value,
        currency_code=currency.code,
        account_metadata=metadata,
    )
