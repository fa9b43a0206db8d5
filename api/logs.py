"""What the API's logs must not hold: the onboarding token in `frontendUrl` links.

uvicorn's access log writes each request's path with its query string; the hosted
onboarding page is opened as `/onboarding/{intentId}?token=<JWT>`, and that token grants
access to the onboarding for an hour.
"""

from __future__ import annotations

import logging
import re

_TOKEN = re.compile(r"(?<=[?&]token=)[^&\s]+")
ACCESS_LOGGER = "uvicorn.access"


def redact(text: str) -> str:
    return _TOKEN.sub("[redacted]", text)


class RedactTokens(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        record.msg = redact(record.msg) if isinstance(record.msg, str) else record.msg
        return True


def redact_access_log() -> None:
    """Installs the filter on uvicorn's access logger (once)."""
    logger = logging.getLogger(ACCESS_LOGGER)
    if not any(isinstance(f, RedactTokens) for f in logger.filters):
        logger.addFilter(RedactTokens())
