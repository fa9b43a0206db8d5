"""Provider webhooks: verified, stored (the inbox), then relayed to intent workflows."""
