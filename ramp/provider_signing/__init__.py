"""What the customer signs with their wallet for a provider that asks (Monerium)."""
