"""Turning stored rows and catalog entries into response resources."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel
from starlette.responses import JSONResponse

from api.schemas import (
    AccountSideResource,
    AmountLimitResource,
    CorridorResource,
    CurrencyResource,
    CustomerResource,
    ExternalAccountResource,
    ProviderResource,
    RequirementResource,
)
from ramp.catalog import AccountSide, AccountType, Currency, Provider, currency_by_code
from ramp.db.tables import Customer, ExternalAccount


def json_list(items: Iterable[BaseModel], status_code: int = 200) -> JSONResponse:
    return JSONResponse([item.model_dump(mode="json") for item in items], status_code=status_code)


def json_resource(item: BaseModel, status_code: int = 200) -> JSONResponse:
    return JSONResponse(item.model_dump(mode="json"), status_code=status_code)


def currency_resource(currency: Currency) -> CurrencyResource:
    return CurrencyResource(
        id=currency.id,
        code=currency.code,
        ticker=currency.ticker,
        name=currency.name,
        decimals=currency.decimals,
        type=currency.type,
        created_at=currency.created_at,
        updated_at=currency.updated_at,
    )


def customer_resource(
    customer: Customer, organization_id: str, access_token: str | None
) -> CustomerResource:
    return CustomerResource(
        id=customer.id,
        created_at=customer.created_at,
        updated_at=customer.updated_at,
        organization_id=organization_id,
        project_id=customer.project_id,
        metadata=customer.customer_metadata,
        access_token=access_token,
    )


def external_account_resource(account: ExternalAccount) -> ExternalAccountResource:
    currency = currency_by_code(account.currency_code)
    # Stored accounts always name a catalog currency: the schema's `const` saw to it.
    assert currency is not None, account.currency_code
    return ExternalAccountResource(
        id=account.id,
        type=AccountType(account.type),
        label=account.label,
        metadata=account.account_metadata,
        currency_id=currency.id,
        currency=currency_resource(currency),
        customer_id=account.customer_id,
        created_at=account.created_at,
        updated_at=account.updated_at,
    )


def _side(side: AccountSide) -> AccountSideResource:
    return AccountSideResource(
        currencies=list(side.currencies),
        account_type=side.account_type,
        rails=list(side.rails),
        countries=list(side.countries),
    )


def provider_resource(provider: Provider) -> ProviderResource:
    return ProviderResource(
        id=provider.id,
        code=provider.code,
        name=provider.name,
        environment=provider.environment,
        corridors=[
            CorridorResource(
                type=corridor.type,
                source=_side(corridor.source),
                destination=_side(corridor.destination),
                limits=[
                    AmountLimitResource(
                        currency_code=code, minimum=str(limit.minimum), maximum=str(limit.maximum)
                    )
                    for code, limit in sorted(corridor.limits.items())
                ],
            )
            for corridor in provider.corridors
        ],
        requirements=[
            RequirementResource(
                code=requirement.code,
                description=requirement.description,
                depends_on=list(requirement.depends_on),
            )
            for requirement in provider.requirements
        ],
    )
