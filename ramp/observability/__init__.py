"""What operators see of the service: request ids, logs, metrics, traces, readiness.

docs/operations.md lists every series and what to do when it moves.
"""
