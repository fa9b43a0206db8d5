"""The worker's CPU per `POST /v1/intent` (auto-complete), and where it goes.

Starts the sandbox (`ramp dev`) as bench/intents.py does, onboards one customer, warms
up, then sends N intents with C concurrent callers (no webhook endpoint) and reads the
CPU time of the worker, the Temporal server and the API from /proc over them. With
`--py-spy FILE` it also records the worker with py-spy (raw, collapsed stacks: one line
per stack with its sample count) while the intents run. Prints one JSON object; the
machine's load average before and after is in it, since the machine may be shared.

    .venv/bin/python -m bench.worker_cpu [--intents 1000] [--concurrency 8]
        [--postgres URL] [--py-spy /tmp/worker.txt] [--rate 100] [--count-statements]

With `--count-statements` every Python process of the sandbox counts its database round
trips (bench/statement_count/sitecustomize.py: SQLAlchemy event listeners) and the
worker's statements, commits and rollbacks per intent are printed, with each statement's
count per intent (`worker_statements_per_intent`).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.intents import (
    CLOCK_TICKS,
    api_client,
    basic,
    cpu_seconds,
    database,
    onboard,
    processes,
    register_payer,
    service_call,
)
from bench.sandbox import SandboxProcess


def thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds of a process's threads, summed by thread name (the main thread is
    the process's name; SQLite's driver threads and the SDK's Rust threads have their
    own)."""
    found: dict[str, float] = {}
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            name = (task / "comm").read_text().strip()
            fields = (task / "stat").read_text().rsplit(") ", 1)[1].split()
        except FileNotFoundError:
            continue
        main = task.name == str(pid)
        key = "main" if main else name
        found[key] = found.get(key, 0.0) + (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    return found


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


async def run(sandbox: SandboxProcess, args: argparse.Namespace) -> dict[str, Any]:
    client_id, secret = sandbox.credentials()
    project = basic(client_id, secret)
    pids = processes(sandbox)
    async with api_client(sandbox.api, args.concurrency) as http:
        payer = await register_payer(http, project)
        await onboard(http, project, payer)
        call = service_call(http, payer)
        for i in range(args.warmup):
            await call(i)
        spy = None
        if args.py_spy:
            spy = await asyncio.create_subprocess_exec(
                shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy"),
                "record",
                "--pid",
                str(pids["ramp_worker"]),
                "--format",
                "raw",
                "--rate",
                str(args.rate),
                "--output",
                args.py_spy,
                "--nonblocking",
                # Only the thread holding the GIL: Python's own CPU, no idle threads.
                "--gil",
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            await asyncio.sleep(1.0)
        # What the worker spends with nothing to do (its polls, the dispatcher's, the
        # SDK's), per second: on a loaded machine a run takes longer, and this with it.
        idle = cpu_seconds(pids["ramp_worker"])
        await asyncio.sleep(args.idle)
        idle_ms_per_s = (cpu_seconds(pids["ramp_worker"]) - idle) * 1000 / args.idle
        load_before = os.getloadavg()
        rss_before = rss_mb(pids["ramp_worker"])
        before = {role: cpu_seconds(pid) for role, pid in pids.items()}
        statements_before = _statements(args.count_statements, pids["ramp_worker"])
        threads_before = thread_cpu(pids["ramp_worker"])
        numbers = iter(range(1_000_000, 1_000_000 + args.intents))
        # The worker's CPU at every `--window` intents answered: the SDK keeps up to
        # 1000 workflows cached, and evicts one for each new intent past that.
        marks = [cpu_seconds(pids["ramp_worker"])]
        done = 0

        async def caller() -> None:
            nonlocal done
            for i in numbers:
                await call(i)
                done += 1
                if done % args.window == 0:
                    marks.append(cpu_seconds(pids["ramp_worker"]))

        start = time.perf_counter()
        await asyncio.gather(*(caller() for _ in range(args.concurrency)))
        elapsed = time.perf_counter() - start
        # What the intents' drivers do after the 201 (their first poll) is theirs too.
        await asyncio.sleep(args.settle)
        cpu = {
            role: round((cpu_seconds(pid) - before[role]) * 1000 / args.intents, 2)
            for role, pid in pids.items()
        }
        threads = {
            name: round((seconds - threads_before.get(name, 0.0)) * 1000 / args.intents, 2)
            for name, seconds in thread_cpu(pids["ramp_worker"]).items()
        }
        statements = {}
        if args.count_statements:
            await asyncio.sleep(0.5)  # the counter writes its file four times a second
            after = _statements(args.count_statements, pids["ramp_worker"])
            statements = {
                key: round((n - statements_before.get(key, 0)) / args.intents, 2)
                for key, n in sorted(after.items(), key=lambda item: -item[1])
                if n - statements_before.get(key, 0) >= args.intents / 20
            }
        if spy is not None:
            spy.send_signal(2)
            await asyncio.wait_for(spy.wait(), 60)
    return {
        "intents": args.intents,
        "concurrency": args.concurrency,
        "throughput_rps": round(args.intents / elapsed, 1),
        "cpu_ms_per_intent": cpu,
        "worker_threads_cpu_ms_per_intent": threads,
        "worker_idle_cpu_ms_per_s": round(idle_ms_per_s, 2),
        # The worker's CPU per intent less what it would have spent idle meanwhile.
        "worker_cpu_ms_per_intent_less_idle": round(
            cpu["ramp_worker"] - idle_ms_per_s * (elapsed + args.settle) / args.intents, 2
        ),
        "worker_cpu_ms_per_intent_by_window": [
            round((after - before) * 1000 / args.window, 1)
            for before, after in itertools.pairwise(marks)
        ],
        # Each open intent's workflow stays in the worker's cache (up to the SDK's 1000).
        "worker_rss_mb": [rss_before, rss_mb(pids["ramp_worker"])],
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "database": "PostgreSQL" if args.postgres else "SQLite",
        **({"worker_statements_per_intent": statements} if statements else {}),
    }


def _statements(directory: str | None, pid: int) -> dict[str, int]:
    """What the worker's counter last wrote (bench/statement_count/sitecustomize.py)."""
    if directory is None:
        return {}
    found: dict[str, int] = json.loads((Path(directory) / f"{pid}.json").read_text())
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--intents", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--settle", type=float, default=1.0)
    parser.add_argument("--window", type=int, default=200)
    parser.add_argument("--idle", type=float, default=5.0, help="seconds of idle measured")
    parser.add_argument("--postgres", metavar="URL", default=None)
    parser.add_argument("--py-spy", metavar="FILE", default=None)
    parser.add_argument("--rate", type=int, default=100)
    parser.add_argument(
        "--count-statements",
        action="store_const",
        const="",
        default=None,
        help="count the worker's database round trips per intent (event listeners)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir, database(args.postgres) as database_url:
        env = None
        if args.count_statements is not None:
            args.count_statements = str(Path(data_dir) / "statements")
            Path(args.count_statements).mkdir()
            counter = Path(__file__).parent / "statement_count"
            path = os.pathsep.join(filter(None, [str(counter), os.environ.get("PYTHONPATH")]))
            env = {"PYTHONPATH": path, "BENCH_STATEMENTS_DIR": args.count_statements}
        sandbox = SandboxProcess(Path(data_dir), database_url, env=env)
        try:
            results = asyncio.run(run(sandbox, args))
        finally:
            sandbox.interrupt()
    print(json.dumps(results, indent=2))
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
