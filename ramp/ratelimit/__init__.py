"""Request counting for throttling: one `Limiter` interface, two stores.

`MemoryLimiter` counts inside one process; `RedisLimiter` counts in Redis, so that
several API processes share one budget. Both implement the same fixed window, opened by
the first hit of a key and closed `window` seconds later, so the two behave alike, and
the same pacing (progressive delays between attempts, `Pacing`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ramp.ratelimit.limiter import Decision, Limiter, MemoryLimiter, Pacing
from ramp.request_rates import Rate, parse_rate

if TYPE_CHECKING:
    from ramp.config import Settings

__all__ = [
    "Decision",
    "Limiter",
    "MemoryLimiter",
    "Pacing",
    "Rate",
    "limiter_from_settings",
    "parse_rate",
]


def limiter_from_settings(settings: Settings) -> Limiter:
    """Redis when `RAMP_RATE_LIMIT_REDIS_URL` is set (several API processes), else memory."""
    url = settings.rate_limit_redis_url.get_secret_value()
    if not url:
        return MemoryLimiter()
    # Imported only when used: the redis client is not needed for one process.
    from ramp.ratelimit.redis_store import RedisLimiter

    return RedisLimiter(url, settings.rate_limit_key_prefix)
