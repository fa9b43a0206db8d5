"""Routing across a project's providers (issue 26): each provider account's health
(health.py), the project's strategy and the ranking it makes (strategy.py), and the
sandbox's provider behaviours (behaviour.py)."""
