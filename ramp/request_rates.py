"""A request rate as the settings write it: `COUNT/SECONDS` (`60/60`), or `off`. Below
both the settings (ramp/config.py) and the limiters (ramp/ratelimit) that count by it."""

from __future__ import annotations

import re
from dataclasses import dataclass

_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class Rate:
    limit: int
    window_seconds: int

    def __str__(self) -> str:
        return f"{self.limit}/{self.window_seconds}"


def parse_rate(text: str) -> Rate | None:
    """The rate `text` names; None for `off`. ValueError if it is neither."""
    if text.strip().lower() == "off":
        return None
    match = _RATE.match(text)
    if match is None or int(match[1]) < 1 or int(match[2]) < 1:
        raise ValueError(f"{text!r} is not a rate: write COUNT/SECONDS (e.g. 60/60) or off")
    return Rate(int(match[1]), int(match[2]))
