"""Provider adapters: how the service talks to each payment provider.

Every provider sits behind `ProviderAdapter`; the sandbox's mock providers use
`SandboxProviderAdapter`, real providers get their own adapter (roadmap) without the
workflow or the activities changing.
"""

from ramp.catalog import SANDBOX_PROVIDERS
from ramp.quotes.models import Quoter

from .base import (
    AccountDetails,
    ProviderAdapter,
    ProviderAdapters,
    ProviderTransaction,
    TransactionCancellation,
    TransactionOrder,
)
from .sandbox import SandboxProviderAdapter


def catalog_quoters() -> dict[str, Quoter]:
    """The quote flow of every provider of the catalog that has one (by provider code)."""
    return {p.code: SandboxProviderAdapter(p) for p in SANDBOX_PROVIDERS}


def catalog_adapters() -> ProviderAdapters:
    """An adapter for every provider of the catalog (today: the sandbox's mocks)."""
    return ProviderAdapters({p.code: SandboxProviderAdapter(p) for p in SANDBOX_PROVIDERS})


__all__ = [
    "AccountDetails",
    "ProviderAdapter",
    "ProviderAdapters",
    "ProviderTransaction",
    "SandboxProviderAdapter",
    "TransactionCancellation",
    "TransactionOrder",
    "catalog_adapters",
    "catalog_quoters",
]
