"""The limiter interface, its in-process store, and the choice between stores."""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
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


@dataclass(frozen=True)
class Pacing:
    """Progressive delays between attempts of one key: the first `free` attempts of a
    window go at once; each later one holds the key for `first_delay_seconds`, doubling
    with every attempt, at most `longest_delay_seconds`. Attempts are counted in a fixed
    window of `window_seconds` opened by the first."""

    free: int
    first_delay_seconds: float
    longest_delay_seconds: float
    window_seconds: int

    def delay_after(self, attempts: int) -> float:
        """How long the key is held after its `attempts`-th attempt of the window."""
        if attempts <= self.free:
            return 0.0
        doublings = min(attempts - self.free - 1, 62)
        return min(self.first_delay_seconds * float(2**doublings), self.longest_delay_seconds)


class Limiter(ABC):
    """Counts hits per key in fixed windows: the first hit of a key opens its window.

    It also paces attempts (`pace`): a key past its free attempts is held for a delay
    that grows with each attempt, and an attempt on a held key is refused uncounted.
    """

    @abstractmethod
    async def hit(self, key: str, rate: Rate) -> Decision:
        """Counts one hit of `key` and says where its window stands."""

    @abstractmethod
    async def peek(self, key: str, rate: Rate) -> Decision:
        """Where `key`'s window stands, without counting."""

    @abstractmethod
    async def pace(self, keys: Sequence[tuple[str, Pacing]]) -> float:
        """One attempt on all of `keys` at once. While any of them is held: the seconds
        until the last hold ends, and nothing is counted. Otherwise 0: the attempt is
        counted on each key, and each past its free attempts is held for its next delay
        (before the attempt is made, so parallel attempts cannot slip in together)."""

    @abstractmethod
    async def forgive(self, key: str) -> None:
        """Takes one attempt of `key` back (it turned out not to be a failure), with
        the hold it set."""

    @abstractmethod
    async def forget(self, key: str) -> None:
        """Clears `key`'s attempts and its hold."""

    async def close(self) -> None:  # noqa: B027 - a store without connections has nothing to close
        """Releases the store's connections."""


class MemoryLimiter(Limiter):
    """Counters in this process's memory: right for one API process (and the sandbox)."""

    # Expired windows are swept once this many keys are held, so memory follows the
    # number of keys active within one window, not every key ever seen.
    SWEEP_AT = 10_000

    def __init__(self) -> None:
        self._windows: dict[str, tuple[int, float]] = {}  # key -> (count, closes at)
        self._holds: dict[str, float] = {}  # key -> held until
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

    async def pace(self, keys: Sequence[tuple[str, Pacing]]) -> float:
        # No await in here: the check and the counts are one step for this process.
        now = time.monotonic()
        wait = max((self._holds.get(key, 0.0) - now for key, _ in keys), default=0.0)
        if wait > 0:
            return wait
        for key, pacing in keys:
            count, closes_at = self._windows.get(key, (0, 0.0))
            if closes_at <= now:
                count, closes_at = 0, now + pacing.window_seconds
            count += 1
            self._windows[key] = (count, closes_at)
            delay = pacing.delay_after(count)
            if delay > 0:
                self._holds[key] = now + delay
        if len(self._windows) + len(self._holds) >= self._sweep_at:
            self._sweep(now)
        return 0.0

    async def forgive(self, key: str) -> None:
        count, closes_at = self._windows.get(key, (0, 0.0))
        if count > 0 and closes_at > time.monotonic():
            self._windows[key] = (count - 1, closes_at)
        # The hold the attempt set goes with it (an attempt is counted only while no
        # hold is on): else the next step of a login (its code) waits for a right password.
        self._holds.pop(key, None)

    async def forget(self, key: str) -> None:
        self._windows.pop(key, None)
        self._holds.pop(key, None)

    def _sweep(self, now: float) -> None:
        self._windows = {k: v for k, v in self._windows.items() if v[1] > now}
        self._holds = {k: until for k, until in self._holds.items() if until > now}
        # Many live keys: sweep again only when as many more have arrived.
        self._sweep_at = max(self.SWEEP_AT, 2 * (len(self._windows) + len(self._holds)))
