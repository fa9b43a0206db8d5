"""Slowing password guesses at the dashboard login, without a lock a stranger can set off.

Failed logins are paced per (account, source address) and per source address
(`Pacing`: a few attempts go at once, then each waits a delay that doubles, up to a
cap). A wait is asked of the address that has been failing, never of the account: the
owner logging in from an address that has not been failing is never refused, however
many guesses are made elsewhere. A distributed guesser is slowed per address only;
against that stand the password rules (12 characters at least) and the second factor.

Every attempt is counted before the password is compared, and taken back once it turns
out right: attempts sent in parallel cannot all go through before the first failure is
counted.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from ramp.errors import Throttled, ThrottleError
from ramp.ratelimit import Limiter, Pacing

DAY = 24 * 3600
# One account from one address: 3 attempts at once, then 1 s, 2 s, 4 s ... at most 15 min.
PER_ACCOUNT_AND_ADDRESS = Pacing(
    free=3, first_delay_seconds=1, longest_delay_seconds=900, window_seconds=DAY
)
# Every account from one address: 10 attempts at once, then the same delays.
PER_ADDRESS = Pacing(free=10, first_delay_seconds=1, longest_delay_seconds=900, window_seconds=DAY)


@dataclass(frozen=True)
class LoginAttempt:
    """One login attempt of `email` from `address` (the throttled source address)."""

    limiter: Limiter
    email: str
    address: str

    @property
    def _account_key(self) -> str:
        # The email hashed: addresses of people stay out of the counters' store.
        account = hashlib.sha256(self.email.strip().lower().encode()).hexdigest()[:32]
        return f"login:account-address:{account}:{self.address}"

    @property
    def _address_key(self) -> str:
        return f"login:address:{self.address}"

    async def begin(self) -> None:
        """Counts the attempt; Throttled (429) if this address must wait first."""
        wait = await self.limiter.pace(
            [(self._account_key, PER_ACCOUNT_AND_ADDRESS), (self._address_key, PER_ADDRESS)]
        )
        if wait > 0:
            # Whole seconds, rounded up (after rounding off float noise to the ms).
            seconds = max(1, math.ceil(round(wait, 3)))
            raise Throttled(
                ThrottleError.LOGIN_THROTTLED,
                f"too many failed logins from this address: try again in {seconds} s",
                seconds,
            )

    async def not_a_guess(self) -> None:
        """The password was right (a second factor may still be asked for): the
        attempt is taken back from the address's count."""
        await self.limiter.forgive(self._address_key)
        await self.limiter.forgive(self._account_key)

    async def succeeded(self) -> None:
        """Logged in: the account's failures from this address are forgotten."""
        await self.limiter.forgive(self._address_key)
        await self.limiter.forget(self._account_key)
