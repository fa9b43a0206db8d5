"""The currencies the service knows about, with their real decimal places."""

from __future__ import annotations

from .models import Currency, CurrencyType, currency_id


def _fiat(code: str, name: str) -> Currency:
    # Every fiat currency served today has 2 minor units in ISO 4217.
    return Currency(
        id=currency_id(code),
        code=code,
        ticker=code,
        name=name,
        decimals=2,
        type=CurrencyType.FIAT,
    )


def _crypto(
    ticker: str,
    blockchain: str,
    name: str,
    decimals: int,
    chain_id: int | None,
    contract: str | None = None,
) -> Currency:
    code = f"{ticker.upper()}_{blockchain}"
    return Currency(
        id=currency_id(code),
        code=code,
        ticker=ticker,
        name=name,
        decimals=decimals,
        type=CurrencyType.CRYPTO,
        blockchain=blockchain,
        chain_id=chain_id,
        contract_address=contract,
    )


_CURRENCIES: tuple[Currency, ...] = (
    _fiat("USD", "US Dollar"),
    _fiat("EUR", "Euro"),
    _fiat("BRL", "Brazilian Real"),
    _fiat("MXN", "Mexican Peso"),
    _fiat("GBP", "Pound Sterling"),
    _crypto(
        "USDC",
        "ETHEREUM",
        "USD Coin (Ethereum)",
        6,
        1,
        contract="0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
    ),
    _crypto(
        "USDC",
        "POLYGON",
        "USD Coin (Polygon PoS)",
        6,
        137,
        contract="0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359",
    ),
    _crypto(
        "USDC",
        "BASE",
        "USD Coin (Base)",
        6,
        8453,
        contract="0x833589fCD6eDb6E08f4c7C32D4b71b54bdA02913",
    ),
    # Circle's Bridged USDC Standard on Gnosis Chain (USDC.e), the USDC of Gnosis Pay;
    # the older Omnibridge token (0xDDAf...7A83) is another contract and not accepted.
    _crypto(
        "USDC",
        "GNOSIS",
        "USD Coin (Gnosis)",
        6,
        100,
        contract="0x2a22f9c3b484c3629090FeED35F17Ff8F88f76F0",
    ),
    # Solana is not an EVM chain, so it has no chain id; its token id is a mint address.
    _crypto(
        "USDC",
        "SOLANA",
        "USD Coin (Solana)",
        6,
        None,
        contract="EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
    ),
    # Bridge's other stablecoins (apidocs.bridge.xyz, fiat payment methods): Tether on
    # Ethereum, Circle's euro coin on Solana.
    _crypto(
        "USDT",
        "ETHEREUM",
        "Tether USD (Ethereum)",
        6,
        1,
        contract="0xdAC17F958D2ee523a2206206994597C13D831ec7",
    ),
    _crypto(
        "EURC",
        "SOLANA",
        "Euro Coin (Solana)",
        6,
        None,
        contract="HzwqbKZw8HxMN6bF2yFZNrht3c2iXXzpKcFu7uBEDKtr",
    ),
    _crypto(
        "EURe",
        "GNOSIS",
        "Monerium EURe (Gnosis)",
        18,
        100,
        contract="0xcB444e90D8198415266c6a2724b7900fb12FC56E",
    ),
    # EURe on the other EVM chains Monerium's API lists (its `Chain`; Noble is not EVM
    # and Monerium's `Address` is an EVM address only): its v2 token contracts.
    _crypto(
        "EURe",
        "ETHEREUM",
        "Monerium EURe (Ethereum)",
        18,
        1,
        contract="0x39b8B6385416f4cA36a20319F70D28621895279D",
    ),
    _crypto(
        "EURe",
        "POLYGON",
        "Monerium EURe (Polygon PoS)",
        18,
        137,
        contract="0xE0aEa583266584DafBB3f9C3211d5588c73fEa8d",
    ),
    _crypto(
        "EURe",
        "ARBITRUM",
        "Monerium EURe (Arbitrum One)",
        18,
        42161,
        contract="0x0c06cCF38114ddfc35e07427B9424adcca9F44F8",
    ),
    _crypto(
        "EURe",
        "LINEA",
        "Monerium EURe (Linea)",
        18,
        59144,
        contract="0x3ff47c5Bf409C86533FE1f4907524d304062428D",
    ),
    _crypto(
        "EURe",
        "BASE",
        "Monerium EURe (Base)",
        18,
        8453,
        contract="0xbf6e2966A9C3D99C9E4D069E04f7Bdb9C8aa762C",
    ),
    _crypto("ETH", "ETHEREUM", "Ether", 18, 1),
    _crypto("BTC", "BITCOIN", "Bitcoin", 8, None),
)

_BY_CODE: dict[str, Currency] = {c.code: c for c in _CURRENCIES}
_BY_ID: dict[str, Currency] = {c.id: c for c in _CURRENCIES}


def all_currencies() -> tuple[Currency, ...]:
    """Every catalog currency: fiat first, then crypto, in a fixed order."""
    return _CURRENCIES


def currency_by_code(code: str) -> Currency | None:
    """Exact, case-sensitive lookup: codes are identifiers, not user input to normalise."""
    return _BY_CODE.get(code)


def currency_by_id(id: str) -> Currency | None:
    return _BY_ID.get(id)
