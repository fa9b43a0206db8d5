"""How long an intent's handlers wait on a network provider (workflows/provider_flow.py),
and how long the API waits for those handlers' answers (ramp/intents/service.py).

The API's wait must outlast the handler's: otherwise a provider slower than the API's
patience reads as our outage (`503`, "could not reach its workflow engine") instead of
what the handler answers at the end of its wait (`201` without the transaction, or the
provider's `502`). A workflow that does not answer at all (no worker) is still answered
`503` at the end of the API's wait (ramp/intents/workflow_client.py). Changing a value
changes how long new waits last; replays of recorded histories are not affected.
"""

from __future__ import annotations

from datetime import timedelta

# `execute`: how long it waits for a network provider's order before answering without it.
EXECUTE_WAIT = timedelta(seconds=20)
# A customer's cancel: how long it waits for the provider's void (an HTTP call is waiting).
CANCEL_BUDGET = timedelta(seconds=20)
# Beyond a handler's own wait: its workflow task, the projection's write, the answer.
# The whole stays under 30 s, the Python client's default timeout (clients/python).
ANSWER_MARGIN = timedelta(seconds=5)
# What the API gives the `execute` and `cancel` updates.
EXECUTE_TIMEOUT = EXECUTE_WAIT + ANSWER_MARGIN
CANCEL_TIMEOUT = CANCEL_BUDGET + ANSWER_MARGIN
