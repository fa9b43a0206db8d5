"""Idempotent creating requests: a key claimed while the request runs, its response
stored and replayed to retries for 24 hours (store.py)."""
