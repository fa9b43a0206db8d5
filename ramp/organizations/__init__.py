"""Organizations and the people and keys that act for them in the dashboard."""
