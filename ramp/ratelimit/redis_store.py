"""Counters in Redis, shared by every API process that names the same server and prefix.

Each hit is one atomic script (INCR, and PEXPIRE when it opened the window), so
concurrent processes never lose a count or leave a key without its expiry. Keys expire
with their window: Redis holds only the windows that are open. A paced attempt is one
script too (check every hold, then count and hold), and a hold is a key that expires
when the hold ends.

When Redis cannot be reached the request is let through (and a warning logged): the
limits protect the service, they must not take it down with them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from redis.asyncio import Redis
from redis.exceptions import RedisError

from ramp.ratelimit.limiter import Decision, Limiter, Pacing
from ramp.request_rates import Rate

logger = logging.getLogger("ramp.ratelimit")

# KEYS[1] the counter; ARGV[1] the window in ms. Returns {count, ms left in the window}.
_HIT = """
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if count == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
"""
_PEEK = """
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
return {count, redis.call('PTTL', KEYS[1])}
"""
# KEYS: (attempts, hold) of each paced key; ARGV: (window ms, free attempts, first delay
# ms, longest delay ms) of each. Returns the ms left of the longest hold, or 0 when the
# attempt was counted (and the keys past their free attempts held for their next delay).
_PACE = """
local wait = 0
for i = 2, #KEYS, 2 do
  local ttl = redis.call('PTTL', KEYS[i])
  if ttl > wait then wait = ttl end
end
if wait > 0 then return wait end
for i = 1, #KEYS, 2 do
  local window = tonumber(ARGV[2 * i - 1])
  local free = tonumber(ARGV[2 * i])
  local first = tonumber(ARGV[2 * i + 1])
  local longest = tonumber(ARGV[2 * i + 2])
  local count = redis.call('INCR', KEYS[i])
  if count == 1 or redis.call('PTTL', KEYS[i]) < 0 then
    redis.call('PEXPIRE', KEYS[i], window)
  end
  if count > free then
    local delay = math.min(first * 2 ^ math.min(count - free - 1, 62), longest)
    redis.call('SET', KEYS[i + 1], '1', 'PX', math.max(1, math.floor(delay)))
  end
end
return 0
"""
# KEYS[1] the attempts: one taken back, if the window is still open; KEYS[2] the hold
# that attempt set, lifted.
_FORGIVE = """
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then
  redis.call('DECR', KEYS[1])
end
redis.call('DEL', KEYS[2])
return 0
"""
# A request waits at most this long for Redis before it is let through.
TIMEOUT_SECONDS = 0.5


class RedisLimiter(Limiter):
    def __init__(self, url: str, prefix: str) -> None:
        self._redis = Redis.from_url(
            url, socket_timeout=TIMEOUT_SECONDS, socket_connect_timeout=TIMEOUT_SECONDS
        )
        self._prefix = prefix
        self._hit = self._redis.register_script(_HIT)
        self._peek = self._redis.register_script(_PEEK)
        self._pace = self._redis.register_script(_PACE)
        self._forgive = self._redis.register_script(_FORGIVE)
        self._quiet_until = 0.0

    async def hit(self, key: str, rate: Rate) -> Decision:
        window_ms = rate.window_seconds * 1000
        try:
            count, ttl = await self._hit(keys=[self._prefix + key], args=[window_ms])
        except (RedisError, OSError) as error:
            return self._unavailable(error, rate)
        return Decision(rate.limit, int(count), int(ttl) / 1000)

    async def peek(self, key: str, rate: Rate) -> Decision:
        try:
            count, ttl = await self._peek(keys=[self._prefix + key])
        except (RedisError, OSError) as error:
            return self._unavailable(error, rate)
        if int(ttl) < 0:  # no open window
            return Decision(rate.limit, 0, rate.window_seconds)
        return Decision(rate.limit, int(count), int(ttl) / 1000)

    async def pace(self, keys: Sequence[tuple[str, Pacing]]) -> float:
        names: list[str] = []
        args: list[int] = []
        for key, pacing in keys:
            names += [self._prefix + key, self._prefix + key + ":hold"]
            args += [
                pacing.window_seconds * 1000,
                pacing.free,
                max(1, round(pacing.first_delay_seconds * 1000)),
                max(1, round(pacing.longest_delay_seconds * 1000)),
            ]
        try:
            wait_ms = await self._pace(keys=names, args=args)
        except (RedisError, OSError) as error:
            self._warn(error)
            return 0.0
        return int(wait_ms) / 1000

    async def forgive(self, key: str) -> None:
        try:
            await self._forgive(keys=[self._prefix + key, self._prefix + key + ":hold"])
        except (RedisError, OSError) as error:
            self._warn(error)

    async def forget(self, key: str) -> None:
        try:
            await self._redis.delete(self._prefix + key, self._prefix + key + ":hold")
        except (RedisError, OSError) as error:
            self._warn(error)

    def _unavailable(self, error: Exception, rate: Rate) -> Decision:
        self._warn(error)
        return Decision(rate.limit, 0, rate.window_seconds)

    def _warn(self, error: Exception) -> None:
        now = time.monotonic()
        if now >= self._quiet_until:  # once a minute, not once a request
            self._quiet_until = now + 60
            logger.warning("rate limit store unavailable, requests let through: %r", error)

    async def close(self) -> None:
        await self._redis.aclose()
