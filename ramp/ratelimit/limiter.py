"""The limiter interface, its in-process store, and the choice between stores."""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass

from ramp.request_rates import Rate


@dataclass(frozen=True)
class Decision:
    """A key's count in its current window, after (or, for `peek`, without) this hit."""

    limit: int
    count: int
    reset_after: float  # seconds until the window closes and the count starts over

    @property
    def allowed(self) -> bool:
        return self.count <= self.limit

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.count)

    @property
    def reset_seconds(self) -> int:
        """Whole seconds until the window closes, as headers give it (at least 1)."""
        # Rounded to the millisecond first: (now + 60) - now may come out 60.000000001.
        return max(1, math.ceil(round(self.reset_after, 3)))


class Limiter(ABC):
    """Counts hits per key in fixed windows: the first hit of a key opens its window."""

    @abstractmethod
    async def hit(self, key: str, rate: Rate) -> Decision:
        """Counts one hit of `key` and says where its window stands."""

    @abstractmethod
    async def peek(self, key: str, rate: Rate) -> Decision:
        """Where `key`'s window stands, without counting."""

    async def close(self) -> None:  # noqa: B027 - a store without connections has nothing to close
        """Releases the store's connections."""


class MemoryLimiter(Limiter):
    """Counters in this process's memory: right for one API process (and the sandbox)."""

    # Expired windows are swept once this many keys are held, so memory follows the
    # number of keys active within one window, not every key ever seen.
    SWEEP_AT = 10_000

    def __init__(self) -> None:
        self._windows: dict[str, tuple[int, float]] = {}  # key -> (count, closes at)
        self._sweep_at = self.SWEEP_AT

    async def hit(self, key: str, rate: Rate) -> Decision:
        now = time.monotonic()
        count, closes_at = self._windows.get(key, (0, 0.0))
        if closes_at <= now:
            count, closes_at = 0, now + rate.window_seconds
        count += 1
        self._windows[key] = (count, closes_at)
        if len(self._windows) >= self._sweep_at:
            self._sweep(now)
        return Decision(rate.limit, count, closes_at - now)

    async def peek(self, key: str, rate: Rate) -> Decision:
        now = time.monotonic()
        count, closes_at = self._windows.get(key, (0, 0.0))
        if closes_at <= now:
            return Decision(rate.limit, 0, rate.window_seconds)
        return Decision(rate.limit, count, closes_at - now)

    def _sweep(self, now: float) -> None:
        self._windows = {k: v for k, v in self._windows.items() if v[1] > now}
        # Many live keys: sweep again only when as many more have arrived.
        self._sweep_at = max(self.SWEEP_AT, 2 * len(self._windows))
