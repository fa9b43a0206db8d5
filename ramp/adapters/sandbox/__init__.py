"""The sandbox's mock providers: a connector like any other (ramp/adapters/contract.py)."""

from .connector import REFUSED_AMOUNT_SUFFIX, SandboxConnector

__all__ = ["REFUSED_AMOUNT_SUFFIX", "SandboxConnector"]
