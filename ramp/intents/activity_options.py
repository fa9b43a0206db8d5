"""Timeouts and retries of IntentWorkflow's local activities (workflows/intents.py).

Changing a value changes how running workflows retry, never their histories.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TypedDict

from temporalio.common import RetryPolicy


# Lookups and projection writes are short database work: local activities spare a
# round trip through the server per step (on the dev server, 27 ms instead of 50 ms
# for two activities), and run within the update's single workflow task.
class ActivityOptions(TypedDict, total=False):
    start_to_close_timeout: timedelta
    schedule_to_close_timeout: timedelta
    retry_policy: RetryPolicy


LOOKUP: ActivityOptions = {
    "start_to_close_timeout": timedelta(seconds=10),
    "retry_policy": RetryPolicy(initial_interval=timedelta(milliseconds=100), maximum_attempts=5),
}
# The projection must eventually hold every change: retry until the database is back.
RECORD: ActivityOptions = {
    "start_to_close_timeout": timedelta(seconds=10),
    "retry_policy": RetryPolicy(
        initial_interval=timedelta(milliseconds=100), maximum_interval=timedelta(seconds=30)
    ),
}
PROVIDER: ActivityOptions = {
    "start_to_close_timeout": timedelta(seconds=20),
    "schedule_to_close_timeout": timedelta(seconds=60),
    "retry_policy": RetryPolicy(initial_interval=timedelta(milliseconds=500), maximum_attempts=5),
}

# Verification may call a KYC vendor: longer than a lookup, retried a few times.
VERIFY: ActivityOptions = {
    "start_to_close_timeout": timedelta(seconds=30),
    "retry_policy": RetryPolicy(initial_interval=timedelta(milliseconds=200), maximum_attempts=5),
}
