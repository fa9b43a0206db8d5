"""Recorded IntentWorkflow histories, replayed by tests/test_replay.py."""
