"""A customer's external accounts: the bank accounts and wallets money moves between."""
