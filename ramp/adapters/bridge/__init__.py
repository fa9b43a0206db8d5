"""Bridge (apidocs.bridge.xyz): USD over ACH and wire, EUR over SEPA, MXN over SPEI, to
and from stablecoins. One module per idea: credentials, client (HTTP and errors),
customers, kyc, accounts, transfers, webhooks, and the connector tying them together.
"""

from .connector import BridgeConnector
from .credentials import CREDENTIALS_SCHEMA, DOCUMENTED_HOSTS

__all__ = ["CREDENTIALS_SCHEMA", "DOCUMENTED_HOSTS", "BridgeConnector"]
