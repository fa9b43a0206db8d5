"""The command line the path-specific recorders share (`python -m
tests.histories.record_connector [PATH ...] [--overwrite]`, and the Monerium and
internal-error ones): the paths named, or those not yet recorded; a recorded history is
overwritten only when asked, since it guards running workflows."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from tests.histories.record import history_file


def run_recorder(
    prog: str,
    known: Sequence[str],
    record: Callable[[Sequence[str]], Coroutine[Any, Any, None]],
    argv: Sequence[str],
) -> None:
    parser = argparse.ArgumentParser(prog=f"python -m {prog}")
    parser.add_argument("paths", nargs="*", metavar="PATH", help=", ".join(known))
    parser.add_argument("--overwrite", action="store_true")
    args = parser.parse_args(argv)
    wanted = list(args.paths) or [p for p in known if not history_file(p).exists()]
    existing = [p for p in wanted if history_file(p).exists()]
    if existing and not args.overwrite:
        parser.error(f"already recorded (use --overwrite): {', '.join(existing)}")
    asyncio.run(record(wanted))
