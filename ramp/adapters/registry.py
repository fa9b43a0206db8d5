"""The production connectors, by provider code: the one place a new provider is added
(besides its catalog entries)."""

from __future__ import annotations

from collections.abc import Mapping

from ramp.adapters.bridge import BridgeConnector
from ramp.adapters.contract import Connector


class Connectors:
    """The connector of each production provider, by provider code."""

    def __init__(self, connectors: Mapping[str, Connector] | None = None) -> None:
        self._connectors: dict[str, Connector] = dict(
            connectors if connectors is not None else {"BRIDGE": BridgeConnector()}
        )

    def codes(self) -> tuple[str, ...]:
        return tuple(self._connectors)

    def get(self, code: str) -> Connector | None:
        return self._connectors.get(code)

    def for_provider(self, code: str) -> Connector:
        connector = self._connectors.get(code)
        if connector is None:
            raise LookupError(f"no connector for provider {code}")
        return connector
