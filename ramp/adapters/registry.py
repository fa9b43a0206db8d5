"""The connectors, by provider code: the one place a new provider is added (besides
its catalog entries)."""

from __future__ import annotations

from collections.abc import Mapping

from ramp.adapters.bridge import BridgeConnector
from ramp.adapters.contract import Connector
from ramp.adapters.sandbox import SandboxConnector
from ramp.catalog import SANDBOX_PROVIDERS


def _catalog() -> dict[str, Connector]:
    connectors: dict[str, Connector] = {p.code: SandboxConnector(p) for p in SANDBOX_PROVIDERS}
    connectors["BRIDGE"] = BridgeConnector()
    return connectors


class Connectors:
    """The connector of each provider, by provider code: the catalog's, with `overrides`
    (tests stand in for one provider, or shorten its timeouts) in their place."""

    def __init__(self, overrides: Mapping[str, Connector] | None = None) -> None:
        self._connectors = _catalog() | dict(overrides or {})
        self._sandbox = frozenset(p.code for p in SANDBOX_PROVIDERS)

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
