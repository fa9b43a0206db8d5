"""Request counting for throttling: one `Limiter` interface, two stores.

`MemoryLimiter` counts inside one process; `RedisLimiter` counts in Redis, so that
several API processes share one budget. Both implement the same fixed window, opened by
the first hit of a key and closed `window` seconds later, so the two behave alike.
"""

from ramp.ratelimit.limiter import Decision, Limiter, MemoryLimiter, limiter_from_settings
from ramp.ratelimit.rates import Rate, parse_rate

__all__ = ["Decision", "Limiter", "MemoryLimiter", "Rate", "limiter_from_settings", "parse_rate"]
