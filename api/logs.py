"""What the API's logs must not hold: the tokens that links carry.

uvicorn's access log writes each request's path with its query string. Two kinds of link
carry a credential there: the hosted onboarding page, opened as
`/onboarding/{intentId}?token=<JWT>` (access to the onboarding for an hour), and a
dashboard setup or invite link, `/dashboard/join/<token>` (an owner's or member's
credential for 24 hours). Both are redacted, and so is any query parameter whose name
says it holds a credential (`token`, `access_token`, `subject_token`, `secret`...).
"""

from __future__ import annotations

import logging
import re

# A query parameter named like a credential: its value, up to the next parameter.
_QUERY_SECRET = re.compile(
    r"(?<=[?&])([A-Za-z_]*(?:token|secret|password)[A-Za-z_]*=)[^&\s#\"]+", re.IGNORECASE
)
# A path segment that is itself the credential (api/dashboard/page_routes.py).
_PATH_SECRET = re.compile(r"(/dashboard/+join/+)[^/?#\s\"]+", re.IGNORECASE)
ACCESS_LOGGER = "uvicorn.access"


def redact(text: str) -> str:
    text = _PATH_SECRET.sub(r"\1[redacted]", text)
    return _QUERY_SECRET.sub(r"\1[redacted]", text)


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
