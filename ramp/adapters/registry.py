"""The connectors, by provider code: the one place a new provider is added (besides
its catalog entries)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ramp.adapters.bridge import BridgeConnector
from ramp.adapters.contract import Connector
from ramp.adapters.monerium import MoneriumConnector
from ramp.adapters.sandbox import SandboxConnector
from ramp.catalog import SANDBOX_PROVIDERS
from ramp.security.network import PUBLIC_ONLY, NetworkPolicy, parse_networks

if TYPE_CHECKING:
    from ramp.config import Settings


def _catalog(network: NetworkPolicy) -> dict[str, Connector]:
    connectors: dict[str, Connector] = {p.code: SandboxConnector(p) for p in SANDBOX_PROVIDERS}
    connectors["BRIDGE"] = BridgeConnector(network=network)
    connectors["MONERIUM"] = MoneriumConnector(network=network)
    return connectors


class Connectors:
    """The connector of each provider, by provider code: the catalog's, with `overrides`
    (tests stand in for one provider, or shorten its timeouts) in their place. `network`
    is where the network providers' API calls may go (`Settings.provider_networks`):
    public addresses only unless the operator allows more."""

    def __init__(
        self,
        overrides: Mapping[str, Connector] | None = None,
        *,
        network: NetworkPolicy = PUBLIC_ONLY,
    ) -> None:
        self.network = network
        self._connectors = _catalog(network) | dict(overrides or {})
        self._sandbox = frozenset(p.code for p in SANDBOX_PROVIDERS)

    @classmethod
    def from_settings(cls, settings: Settings) -> Connectors:
        """The deployment's connectors, calling where its settings allow."""
        return cls(network=PUBLIC_ONLY.with_networks(parse_networks(settings.provider_networks)))

    def codes(self) -> tuple[str, ...]:
        """The production providers (a project connects an account of one of them)."""
        return tuple(code for code in self._connectors if code not in self._sandbox)

    def get(self, code: str) -> Connector | None:
        return self._connectors.get(code)

    def for_provider(self, code: str) -> Connector:
        connector = self._connectors.get(code)
        if connector is None:
            raise LookupError(f"no connector for provider {code}")
        return connector
