"""The request a piece of work serves, in context variables: set by the API for each
request, carried into workflows and activities by a Temporal header
(ramp/observability/temporal.py), and written on every log line (logs.py)."""

from __future__ import annotations

import contextlib
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

REQUEST_ID_HEADER = "X-Request-Id"
# What we take from a client's X-Request-Id: short, printable, no blanks (it lands in
# logs and headers as it is). Anything else is replaced by an id of our own.
_SANE_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:@/+=-]{1,128}$")

request_id: ContextVar[str | None] = ContextVar("ramp_request_id", default=None)
project_id: ContextVar[str | None] = ContextVar("ramp_project_id", default=None)
intent_id: ContextVar[str | None] = ContextVar("ramp_intent_id", default=None)


def new_request_id() -> str:
    return uuid.uuid4().hex


def sane_request_id(value: str | None) -> str | None:
    """The client's id if it is fit to log and echo, else None."""
    if value is not None and _SANE_REQUEST_ID.match(value):
        return value
    return None


def current() -> dict[str, str]:
    """The ids known here, by their log field names."""
    known = {
        "request_id": request_id.get(),
        "project_id": project_id.get(),
        "intent_id": intent_id.get(),
    }
    return {name: value for name, value in known.items() if value}


@contextmanager
def bound(
    *, request: str | None = None, project: str | None = None, intent: str | None = None
) -> Iterator[None]:
    """Sets the given ids for the block (None leaves one as it is)."""
    tokens = [
        (var, var.set(value))
        for var, value in ((request_id, request), (project_id, project), (intent_id, intent))
        if value
    ]
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            # Closed from another context (Temporal evicting a workflow closes its
            # coroutine from the eviction's task): the context the ids were set in is
            # gone with it, so there is nothing to restore.
            with contextlib.suppress(ValueError):
                var.reset(token)
