"""External account use cases: a route's account requirements for a project, and a
customer's source/destination account pair, validated against them and stored."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.catalog import (
    Provider,
    RouteRequirements,
    UnsupportedRoute,
    currency_by_code,
    route_requirements,
    validate_account,
)
from ramp.db.tables import Customer, ExternalAccount
from ramp.errors import InvalidInput
from ramp.projects import NO_PROVIDER_ACCOUNT, routing_accounts


@dataclass(frozen=True)
class AccountPair:
    source: ExternalAccount
    destination: ExternalAccount


def requirements_for_route(src: str, dest: str, providers: Sequence[Provider]) -> RouteRequirements:
    """The route's account schemas; InvalidInput (UNSUPPORTED_ROUTE) names an unsupported
    route, and says so when the project routes through no provider at all."""
    if not providers:
        raise InvalidInput(
            "UNSUPPORTED_ROUTE",
            f"route {src} -> {dest} is not supported: {NO_PROVIDER_ACCOUNT}",
            {"src": src, "dest": dest},
        )
    try:
        return route_requirements(src, dest, providers)
    except UnsupportedRoute as error:
        raise InvalidInput("UNSUPPORTED_ROUTE", error.reason, {"src": src, "dest": dest}) from error


async def project_route_requirements(
    session: AsyncSession, project_id: str, src: str, dest: str
) -> RouteRequirements:
    """The account schemas of `src -> dest` through the providers the project routes by."""
    return requirements_for_route(src, dest, await _providers(session, project_id))


async def register_account_pair(
    session: AsyncSession,
    customer: Customer,
    *,
    src: str,
    dest: str,
    source: dict[str, Any],
    destination: dict[str, Any],
    ids: tuple[str, str] | None = None,
) -> AccountPair:
    """Stores the customer's source (in `src`) and destination (in `dest`) accounts, both
    or neither. InvalidInput if the route is not supported for the customer's project, or
    if an account's metadata does not match the route's schema (every violation named).
    `ids` are the accounts' ids when the caller derives them (a one-call intent derives
    them from its Idempotency-Key), fresh ones otherwise."""
    check_account_pair(
        await project_route_requirements(session, customer.project_id, src, dest),
        src=src,
        dest=dest,
        source=source,
        destination=destination,
    )
    source_id, destination_id = ids if ids is not None else (str(uuid.uuid4()), str(uuid.uuid4()))
    pair = AccountPair(
        source=_account(customer, source_id, src, source),
        destination=_account(customer, destination_id, dest, destination),
    )
    session.add_all([pair.source, pair.destination])
    # Both accounts or neither: one transaction.
    await session.commit()
    return pair


def check_account_pair(
    requirements: RouteRequirements,
    *,
    src: str,
    dest: str,
    source: dict[str, Any],
    destination: dict[str, Any],
) -> None:
    """InvalidInput (SCHEMA_VALIDATION_FAILED) naming every field of either account that
    breaks the route's schemas, by its JSON pointer from the body (`/source/...`)."""
    violations = [
        {"pointer": f"/{side}{violation.pointer}", "reason": violation.reason}
        for side, schema, metadata in (
            ("source", requirements.source, source),
            ("destination", requirements.destination, destination),
        )
        for violation in validate_account(schema, metadata)
    ]
    if violations:
        raise InvalidInput(
            "SCHEMA_VALIDATION_FAILED",
            f"external account metadata does not match the requirements schema for {src} -> {dest}",
            {"fields": violations},
        )


async def _providers(session: AsyncSession, project_id: str) -> tuple[Provider, ...]:
    return tuple(provider for provider, _ in await routing_accounts(session, project_id))


def _account(
    customer: Customer, account_id: str, currency_code: str, metadata: dict[str, Any]
) -> ExternalAccount:
    currency = currency_by_code(currency_code)
    assert currency is not None  # the route's schemas only exist for catalog currencies
    return ExternalAccount(
        id=account_id,
        project_id=customer.project_id,
        customer_id=customer.id,
        type=currency.account_type.value,
        currency_code=currency.code,
        account_metadata=metadata,
    )
