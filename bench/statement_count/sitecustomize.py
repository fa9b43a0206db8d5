"""Counts the database round trips of every Python process of a bench's `ramp dev`
(`bench.worker_cpu --count-statements`): on PYTHONPATH with BENCH_STATEMENTS_DIR set,
each process counts its statements, commits and rollbacks with SQLAlchemy event
listeners and writes them to `<dir>/<pid>.json` four times a second. Bench-only: the
service never imports it."""

from __future__ import annotations

import json
import os
import threading
import time
from collections import Counter
from typing import Any

_DIR = os.environ.get("BENCH_STATEMENTS_DIR")


def _install(directory: str) -> None:
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    counts: Counter[str] = Counter()
    lock = threading.Lock()

    def statement(_c: Any, _cur: Any, sql: str, *_: Any) -> None:
        with lock:
            counts["statements"] += 1
            counts["sql: " + " ".join(sql.split())[:90]] += 1

    def rollback(_c: Any) -> None:
        with lock:
            counts["rollbacks"] += 1

    def commit(_c: Any) -> None:
        with lock:
            counts["commits"] += 1

    event.listen(Engine, "before_cursor_execute", statement)
    event.listen(Engine, "rollback", rollback)
    event.listen(Engine, "commit", commit)
    path = os.path.join(directory, f"{os.getpid()}.json")

    def dump() -> None:
        while True:
            time.sleep(0.25)
            with lock:
                text = json.dumps(dict(counts))
            with open(path + ".tmp", "w") as out:
                out.write(text)
            os.replace(path + ".tmp", path)

    threading.Thread(target=dump, name="bench-statements", daemon=True).start()


if _DIR:
    _install(_DIR)
