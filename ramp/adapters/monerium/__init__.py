"""Monerium (monerium.com API v2): EUR over SEPA to and from EURe, its e-money token.

Its model differs most from Bridge's: OAuth 2 client-credentials tokens, profiles whose
KYC sections we fill, wallet signatures (address link, redeem orders), a per-customer
IBAN that mints on every incoming payment, and webhooks signed with a secret we choose.
One module per idea: credentials, tokens, client (HTTP and errors), amounts, profiles,
signatures, orders, webhooks, and the connector tying them together.
"""

from .connector import WALLET_OWNERSHIP, MoneriumConnector
from .credentials import CREDENTIALS_SCHEMA, DOCUMENTED_HOSTS

__all__ = ["CREDENTIALS_SCHEMA", "DOCUMENTED_HOSTS", "WALLET_OWNERSHIP", "MoneriumConnector"]
