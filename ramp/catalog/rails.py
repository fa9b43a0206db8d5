"""Rail and chain data behind the account schemas: the identifier fields each rail needs,
their patterns, tax-id formats by country, provider-specific extra fields, and the
examples the schemas carry. Changes when a rail, country or chain is added.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .models import ExtraFieldName, Rail

ROUTING_NUMBER = "^[0-9]{9}$"
US_ACCOUNT_NUMBER = "^[0-9]{4,17}$"
IBAN = "^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$"
BIC = "^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$"
# CPF (11 digits), CNPJ (14 digits), e-mail, +55 phone, or a random (EVP) UUID key.
PIX_KEY = (
    "^([0-9]{11}|[0-9]{14}|[^@\\s]{1,64}@[^@\\s]+\\.[^@\\s]+|\\+55[0-9]{10,11}"
    "|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$"
)
CLABE = "^[0-9]{18}$"
SORT_CODE = "^[0-9]{6}$"
UK_ACCOUNT_NUMBER = "^[0-9]{8}$"
COUNTRY = "^[A-Z]{2}$"
NOT_BLANK = "\\S"

EVM_ADDRESS = "^0x[a-fA-F0-9]{40}$"
# Mainnet P2WPKH/P2WSH/P2TR bech32(m) in either case, or legacy P2PKH/P2SH base58.
BTC_ADDRESS = (
    "^(bc1[qp][02-9ac-hj-np-z]{38,58}|BC1[QP][02-9AC-HJ-NP-Z]{38,58}"
    "|[13][1-9A-HJ-NP-Za-km-z]{25,34})$"
)
SOLANA_ADDRESS = "^[1-9A-HJ-NP-Za-km-z]{32,44}$"

# Tax ids whose national format we know; other countries get the generic pattern.
GENERIC_TAX_ID = "^[A-Za-z0-9][A-Za-z0-9./ -]{2,38}[A-Za-z0-9]$"
TAX_ID_BY_COUNTRY: dict[str, tuple[str, str]] = {
    "US": ("^([0-9]{3}-?[0-9]{2}-?[0-9]{4}|[0-9]{2}-?[0-9]{7})$", "SSN, ITIN or EIN"),
    "BR": (
        "^([0-9]{3}\\.?[0-9]{3}\\.?[0-9]{3}-?[0-9]{2}"
        "|[0-9]{2}\\.?[0-9]{3}\\.?[0-9]{3}/?[0-9]{4}-?[0-9]{2})$",
        "CPF or CNPJ",
    ),
    "MX": ("^[A-Z&Ñ]{3,4}[0-9]{6}[A-Z0-9]{3}$", "RFC"),
    "GB": (
        "^([A-CEGHJ-PR-TW-Z]{2}[0-9]{6}[A-D]|[0-9]{10}|[A-Z0-9]{8})$",
        "National Insurance number, UTR or company number",
    ),
}


@dataclass(frozen=True)
class RailSpec:
    description: str
    properties: dict[str, dict[str, Any]]
    required: tuple[str, ...]
    example: dict[str, str]
    example_institution: str
    example_country: tuple[str, ...]  # preferred countries for the example, in order


ABA = {
    "type": "string",
    "pattern": ROUTING_NUMBER,
    "format": "aba-routing-number",
    "description": "9-digit ABA routing number (checksum verified)",
}
US_ACCOUNT = {
    "type": "string",
    "pattern": US_ACCOUNT_NUMBER,
    "description": "US bank account number, 4 to 17 digits",
}

RAILS: dict[Rail, RailSpec] = {
    Rail.ACH: RailSpec(
        "US ACH transfer",
        {"routingNumber": ABA, "accountNumber": US_ACCOUNT},
        ("routingNumber", "accountNumber"),
        {"routingNumber": "021000021", "accountNumber": "000123456789"},
        "JPMorgan Chase Bank",
        ("US",),
    ),
    Rail.WIRE: RailSpec(
        "US domestic wire (Fedwire)",
        {"routingNumber": ABA, "accountNumber": US_ACCOUNT},
        ("routingNumber", "accountNumber"),
        {"routingNumber": "026009593", "accountNumber": "4839201756"},
        "Bank of America",
        ("US",),
    ),
    Rail.SEPA: RailSpec(
        "SEPA credit transfer",
        {
            "iban": {
                "type": "string",
                "pattern": IBAN,
                "format": "iban",
                "description": "IBAN without spaces, upper case (mod-97 checksum verified)",
            },
            "bic": {
                "type": "string",
                "pattern": BIC,
                "description": "BIC (SWIFT code) of the bank, 8 or 11 characters; optional",
            },
        },
        ("iban",),
        {"iban": "DE89370400440532013000", "bic": "COBADEFFXXX"},
        "Commerzbank",
        ("DE",),
    ),
    Rail.PIX: RailSpec(
        "Brazilian PIX instant payment",
        {
            "pixKey": {
                "type": "string",
                "pattern": PIX_KEY,
                "maxLength": 77,
                "description": "PIX key: CPF or CNPJ digits, e-mail, +55 phone or random key",
            }
        },
        ("pixKey",),
        {"pixKey": "12345678909"},
        "Banco do Brasil",
        ("BR",),
    ),
    Rail.SPEI: RailSpec(
        "Mexican SPEI transfer",
        {
            "clabe": {
                "type": "string",
                "pattern": CLABE,
                "format": "clabe",
                "description": "18-digit CLABE (check digit verified)",
            }
        },
        ("clabe",),
        {"clabe": "032180000118359719"},
        "BBVA México",
        ("MX",),
    ),
    Rail.FPS: RailSpec(
        "UK Faster Payments",
        {
            "sortCode": {
                "type": "string",
                "pattern": SORT_CODE,
                "description": "6-digit sort code without dashes",
            },
            "accountNumber": {
                "type": "string",
                "pattern": UK_ACCOUNT_NUMBER,
                "description": "8-digit UK account number",
            },
        },
        ("sortCode", "accountNumber"),
        {"sortCode": "401276", "accountNumber": "41234567"},
        "HSBC UK",
        ("GB",),
    ),
}

# SEPA reaches many countries; an example IBAN must belong to the example's country.
SEPA_EXAMPLES: dict[str, tuple[str, str, str]] = {
    "DE": ("DE89370400440532013000", "COBADEFFXXX", "Commerzbank"),
    "NL": ("NL91ABNA0417164300", "ABNANL2A", "ABN AMRO"),
    "IE": ("IE29AIBK93115212345678", "AIBKIE2D", "AIB"),
    "GB": ("GB29NWBK60161331926819", "NWBKGB2L", "NatWest"),
    "FR": ("FR1420041010050500013M02606", "PSSTFRPPPAR", "La Banque Postale"),
}

TAX_ID_EXAMPLES = {
    "US": "12-3456789",
    "BR": "123.456.789-09",
    "MX": "XAXX010101000",
    "GB": "AB123456C",
}
GENERIC_TAX_ID_EXAMPLE = "12345678901"

EXTRA_FIELDS: dict[ExtraFieldName, dict[str, Any]] = {
    ExtraFieldName.BENEFICIARY_ADDRESS: {
        "type": "object",
        "description": "Postal address of the beneficiary",
        "additionalProperties": False,
        "properties": {
            "line1": {"type": "string", "minLength": 1, "maxLength": 100, "pattern": NOT_BLANK},
            "line2": {"type": "string", "maxLength": 100},
            "city": {"type": "string", "minLength": 1, "maxLength": 60, "pattern": NOT_BLANK},
            "region": {"type": "string", "maxLength": 60},
            "postalCode": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9 -]{1,9}$"},
            "country": {"type": "string", "pattern": COUNTRY},
        },
        "required": ["line1", "city", "postalCode", "country"],
    },
    ExtraFieldName.INTERMEDIARY_BANK: {
        "type": "object",
        "description": "Correspondent bank the wire is routed through, when the bank needs one",
        "additionalProperties": False,
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 140, "pattern": NOT_BLANK},
            "swiftCode": {"type": "string", "pattern": BIC},
        },
        "required": ["name", "swiftCode"],
    },
}
EXTRA_EXAMPLES: dict[ExtraFieldName, dict[str, str]] = {
    ExtraFieldName.BENEFICIARY_ADDRESS: {
        "line1": "350 Fifth Avenue",
        "city": "New York",
        "region": "NY",
        "postalCode": "10118",
        "country": "US",
    },
    ExtraFieldName.INTERMEDIARY_BANK: {"name": "Citibank N.A.", "swiftCode": "CITIUS33"},
}


@dataclass(frozen=True)
class ChainSpec:
    pattern: str
    description: str
    example: str
    format: str | None = None


EVM = ChainSpec(
    EVM_ADDRESS,
    "EVM address: 0x and 40 hex digits; mixed case must be a valid EIP-55 checksum",
    "0x742d35Cc6634C0532925a3b844Bc454e4438f44e",
    "evm-address",
)
CHAINS: dict[str, ChainSpec] = {
    "ETHEREUM": EVM,
    "POLYGON": EVM,
    "BASE": EVM,
    "GNOSIS": EVM,
    "ARBITRUM": EVM,
    "LINEA": EVM,
    "BITCOIN": ChainSpec(
        BTC_ADDRESS,
        "Bitcoin mainnet address: bech32 (bc1...) or legacy (1... / 3...)",
        "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
    ),
    "SOLANA": ChainSpec(
        SOLANA_ADDRESS,
        "Solana address: base58, 32 to 44 characters",
        "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
    ),
}
