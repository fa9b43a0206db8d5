"""Growing pauses between polls: the first short (a state that changes at once is seen
at once), then longer up to a ceiling (a long wait costs few polls). A poll is not free:
a process's readiness check asks the Temporal server to describe a task queue (about
3 ms of CPU, the test's and the server's), a read of an intent through the API costs the
test process a few ms; waits of 20 to 40 s (a worker killed, an order retried) polled
every 20 to 50 ms took CPU the other tests of the run needed."""

from __future__ import annotations

from collections.abc import Iterator


def pauses(first: float = 0.02, longest: float = 0.25) -> Iterator[float]:
    pause = first
    while True:
        yield pause
        pause = min(pause * 1.5, longest)
