"""External accounts as intents and providers read them: one lookup by id, and the
provider's view of one account. The intent service, the intent activities and the
provider activities all read accounts here."""

from __future__ import annotations

from collections.abc import Iterable

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.adapters.contract import AccountDetails
from ramp.catalog import AccountFacts, AccountType
from ramp.db.tables import ExternalAccount


async def accounts_by_id(
    session: AsyncSession, ids: Iterable[str], *, owners: str | Iterable[str] | None = None
) -> dict[str, ExternalAccount]:
    """The accounts of `ids` (of these customers only, when `owners` is given), by id;
    a missing id is absent. External accounts are never deleted: an intent's stay."""
    query = select(ExternalAccount).where(col(ExternalAccount.id).in_(list(ids)))
    if owners is not None:
        customers = [owners] if isinstance(owners, str) else list(owners)
        query = query.where(col(ExternalAccount.customer_id).in_(customers))
    return {row.id: row for row in (await session.exec(query)).all()}


def account_facts(account: ExternalAccount) -> AccountFacts:
    """What routing reads of an account: its currency, type, rail and country."""
    return AccountFacts.from_metadata(
        account.currency_code, AccountType(account.type), account.account_metadata
    )


def account_details(account: ExternalAccount) -> AccountDetails:
    """The account as a provider's connector sees it."""
    facts = account_facts(account)
    return AccountDetails(
        currency_code=account.currency_code,
        rail=facts.rail,
        country_code=facts.country_code,
        metadata=account.account_metadata,
    )
