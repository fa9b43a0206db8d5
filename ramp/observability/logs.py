"""Log lines: readable by default, JSON lines with RAMP_LOG_FORMAT=json; either way each
line written while serving a request (or running the work it started) names its request
id, and its project and intent where known (context.py)."""

from __future__ import annotations

import logging
import sys

from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonFormatter

from ramp.observability import context

TEXT_FORMAT = "%(levelname)s %(name)s: %(message)s"
_FIELDS = ("request_id", "project_id", "intent_id")


class RequestContext(logging.Filter):
    """Adds the ids of the work under way to every record (a handler's filter: it sees
    the records of every logger)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, value in context.current().items():
            if not hasattr(record, name):
                setattr(record, name, value)
        return True


class ReadableFormatter(logging.Formatter):
    """The plain format, with the ids appended when there are any."""

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        ids = " ".join(
            f"{name}={getattr(record, name)}" for name in _FIELDS if getattr(record, name, None)
        )
        return f"{line} [{ids}]" if ids else line


def json_formatter() -> logging.Formatter:
    return JsonFormatter(
        "{levelname}{name}{message}",
        style="{",
        rename_fields={"levelname": "level", "name": "logger"},
        # ISO 8601 in UTC, to the microsecond.
        timestamp=True,
        # uvicorn's copy of its message with terminal colours.
        reserved_attrs=[*RESERVED_ATTRS, "color_message"],
    )


def configure_logging(log_format: str = "text", level: int = logging.INFO) -> None:
    """The process's one log handler (stderr), in the format asked for. Called once by
    each process's entry point (`ramp api`, `ramp worker`, `ramp dispatcher`)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(RequestContext())
    readable = ReadableFormatter(TEXT_FORMAT)
    handler.setFormatter(json_formatter() if log_format == "json" else readable)
    root = logging.getLogger()
    for existing in list(root.handlers):
        root.removeHandler(existing)
    root.addHandler(handler)
    root.setLevel(level)
