"""A production project's quoters: the connector of each of its routing provider
accounts, opened with the account's credentials.

An account whose credentials cannot be opened (or whose provider has no connector)
still gets a quoter, one that fails: the quote use case then names the provider in
`unavailable` like any other failure, never failing the whole request.
"""

from __future__ import annotations

from decimal import Decimal

from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.adapters.contract import Connector, ProviderContext
from ramp.adapters.registry import Connectors
from ramp.catalog import SANDBOX_PROVIDERS
from ramp.projects import routing_accounts
from ramp.provider_accounts.service import provider_context
from ramp.quotes.models import ProviderQuote, Quoter, RailQuoteRequest
from ramp.security.encryption import SecretBox


class ConnectorQuoter:
    """A connector's quote flow for one provider account (`Quoter`)."""

    def __init__(self, connector: Connector, ctx: ProviderContext) -> None:
        self._connector, self._ctx = connector, ctx

    async def quote(self, request: RailQuoteRequest) -> ProviderQuote:
        quote = await self._connector.quote(self._ctx, request)
        if isinstance(quote, ProviderQuote):
            return quote
        # A plain contract quote: its whole fee is processing, its rate what arrives per unit.
        rate = quote.destination_amount / quote.source_amount if quote.source_amount else Decimal(0)
        return ProviderQuote.from_quote(quote, rate)


class _Unopened:
    """The quoter of an account that could not be opened: every quote fails."""

    def __init__(self, reason: str) -> None:
        self._reason = reason

    async def quote(self, request: RailQuoteRequest) -> ProviderQuote:
        raise RuntimeError(self._reason)


def sandbox_quoters(connectors: Connectors | None = None) -> dict[str, Quoter]:
    """The quote flow of each of the sandbox's mock providers (they have no accounts
    to open: a context without credentials)."""
    registry = connectors or Connectors()
    return {
        p.code: ConnectorQuoter(
            registry.for_provider(p.code), ProviderContext.without_credentials(p.code)
        )
        for p in SANDBOX_PROVIDERS
    }


async def account_quoters(
    session: AsyncSession,
    project_id: str,
    *,
    secret_box: SecretBox,
    connectors: Connectors | None = None,
) -> dict[str, Quoter]:
    """A quoter per provider the project routes through (by provider code)."""
    quoters: dict[str, Quoter] = {}
    for provider, account_id in await routing_accounts(session, project_id):
        try:
            _, connector, ctx = await provider_context(
                session,
                provider_account_id=account_id,
                secret_box=secret_box,
                connectors=connectors,
            )
        except Exception as error:  # one broken account never fails the others' quotes
            quoters[provider.code] = _Unopened(
                f"provider account not usable: {type(error).__name__}"
            )
            continue
        quoters[provider.code] = ConnectorQuoter(connector, ctx)
    return quoters
