"""Provider accounts: a project's credentials at a real provider, and their health."""
