"""Counters in Redis, shared by every API process that names the same server and prefix.

Each hit is one atomic script (INCR, and PEXPIRE when it opened the window), so
concurrent processes never lose a count or leave a key without its expiry. Keys expire
with their window: Redis holds only the windows that are open.

When Redis cannot be reached the request is let through (and a warning logged): the
limits protect the service, they must not take it down with them.
"""

from __future__ import annotations

import logging
import time

from redis.asyncio import Redis
from redis.exceptions import RedisError

from ramp.ratelimit.limiter import Decision, Limiter
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

    def _unavailable(self, error: Exception, rate: Rate) -> Decision:
        now = time.monotonic()
        if now >= self._quiet_until:  # once a minute, not once a request
            self._quiet_until = now + 60
            logger.warning("rate limit store unavailable, requests let through: %r", error)
        return Decision(rate.limit, 0, rate.window_seconds)

    async def close(self) -> None:
        await self._redis.aclose()
