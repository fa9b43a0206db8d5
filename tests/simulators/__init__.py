"""Stand-ins for third-party providers, written from their public API references."""
