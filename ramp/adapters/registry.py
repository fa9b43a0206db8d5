"""The production connectors, by provider code: the one place a new provider is added
(besides its catalog entries)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ramp.adapters.bridge import BridgeConnector
from ramp.adapters.contract import Connector
from ramp.security.network import PUBLIC_ONLY, NetworkPolicy, parse_networks

if TYPE_CHECKING:
    from ramp.config import Settings


class Connectors:
    """The connector of each production provider, by provider code. `network` is where
    their API calls may go (`Settings.provider_network`): public addresses only unless
    the operator allows more."""

    def __init__(
        self,
        connectors: Mapping[str, Connector] | None = None,
        *,
        network: NetworkPolicy = PUBLIC_ONLY,
    ) -> None:
        self.network = network
        self._connectors: dict[str, Connector] = dict(
            connectors if connectors is not None else {"BRIDGE": BridgeConnector(network=network)}
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> Connectors:
        """The deployment's connectors, calling where its settings allow."""
        return cls(network=PUBLIC_ONLY.with_networks(parse_networks(settings.provider_networks)))

    def codes(self) -> tuple[str, ...]:
        return tuple(self._connectors)

    def get(self, code: str) -> Connector | None:
        return self._connectors.get(code)

    def for_provider(self, code: str) -> Connector:
        connector = self._connectors.get(code)
        if connector is None:
            raise LookupError(f"no connector for provider {code}")
        return connector
