"""Helpers shared by the tests: servers, clients, payloads and simulators of
what lies outside the service. Fixtures stay in tests/conftest.py."""
