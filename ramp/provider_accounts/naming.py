"""A provider account's name and routing priority (issue 26: several accounts of one
provider per project), as the CLI, the admin API and the dashboard take them."""

from __future__ import annotations

import re

from ramp.errors import InvalidInput, RequestError

# The name of an account set without one: the one account per provider of before.
DEFAULT_NAME = "default"
# Lower routes first among a provider's accounts.
DEFAULT_PRIORITY = 100
MAX_PRIORITY = 1_000_000
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def check_name(name: str | None) -> str:
    """The account's name as stored: DEFAULT_NAME for none; else refused unless 1 to 64
    letters, digits, '.', '_' or '-' (starting with a letter or digit)."""
    if name is None:
        return DEFAULT_NAME
    if not NAME_PATTERN.match(name):
        raise InvalidInput(
            RequestError.VALIDATION_ERROR,
            "an account's name is 1 to 64 letters, digits, '.', '_' or '-', starting with "
            "a letter or digit",
            {"fields": [{"pointer": "/name", "reason": "is not a valid account name"}]},
        )
    return name


def check_priority(priority: int) -> None:
    if isinstance(priority, bool) or not 0 <= priority <= MAX_PRIORITY:
        raise InvalidInput(
            RequestError.VALIDATION_ERROR,
            f"an account's priority is an integer from 0 to {MAX_PRIORITY} (lower first)",
            {"fields": [{"pointer": "/priority", "reason": "is out of range"}]},
        )
