"""Indicative quotes across a project's providers (`GET /v1/intent/quote`), and the
project's partner fee."""
