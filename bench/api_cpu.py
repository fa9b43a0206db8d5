"""The API process's own CPU per request, for the reads of `bench.foundation_api`.

Wall-clock ratios move with the machine's load (a 2-core machine shared with other work);
the CPU the API process spends on one request moves much less. This starts the sandbox,
finds the API's process, and for each endpoint reads its utime + stime from /proc before
and after N requests sent by a few concurrent callers. Prints JSON: milliseconds of API
CPU per request, and the ratio to the floor's (an unknown path: no auth, no database).

    .venv/bin/python -m bench.api_cpu [--requests 2000] [--concurrency 8]
        [--profile 'GET /v1/intent/{id}' --profile-out profile.txt]

`--profile` also records that endpoint with py-spy (if installed) while it runs, and
writes py-spy's collapsed stacks to `--profile-out`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.foundation_api import Call, customer_with_intent, read_calls
from bench.sandbox import SandboxProcess, descendants

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(stat: Path) -> float:
    fields = stat.read_text().rsplit(") ", 1)[1].split()
    # utime and stime are fields 14 and 15 of stat(5); here after the first two.
    return (int(fields[11]) + int(fields[12])) / TICKS


def cpu_by_thread(pid: int) -> tuple[float, float]:
    """The process's CPU seconds so far: its main thread's (the event loop), and the
    rest (aiosqlite's connection threads, the Temporal client's, threads since ended)."""
    main = cpu_seconds(Path(f"/proc/{pid}/task/{pid}/stat"))
    return main, cpu_seconds(Path(f"/proc/{pid}/stat")) - main


def api_pid(sandbox: SandboxProcess) -> int:
    for pid in descendants(sandbox.process.pid):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except FileNotFoundError:
            continue
        if b"api" in argv and str(sandbox.port).encode() in argv:
            return pid
    raise RuntimeError("no API process found under ramp dev")


async def run(client: httpx.AsyncClient, call: Call, count: int, callers: int) -> None:
    counter = iter(range(count))

    async def caller() -> None:
        for i in counter:
            response = await call(client, 200_000 + i)
            assert response.status_code < 500, response.text

    await asyncio.gather(*(caller() for _ in range(callers)))


async def measure(
    sandbox: SandboxProcess,
    auth: tuple[str, str],
    requests: int,
    callers: int,
    only: list[str],
    profile: str | None,
    profile_out: Path,
) -> dict[str, Any]:
    reader, intent_id = await customer_with_intent(sandbox.api, auth)
    pid = api_pid(sandbox)
    limits = httpx.Limits(max_connections=callers, max_keepalive_connections=callers)
    results: dict[str, Any] = {}
    async with httpx.AsyncClient(base_url=sandbox.api, limits=limits, timeout=30) as client:
        for name, call in read_calls(auth, reader, intent_id, customer_prefix="cpu").items():
            if only and name not in only and not name.startswith("floor"):
                continue
            await run(client, call, 50, callers)  # warm-up: connections, caches
            status = (await call(client, 300_000)).status_code
            spy = None
            py_spy = shutil.which("py-spy")
            if name == profile and py_spy:
                spy = await asyncio.create_subprocess_exec(
                    *[py_spy, "record", "--pid", str(pid), "--format", "raw", "--rate", "250"],
                    # Only the thread that holds the GIL: what Python runs, in either thread.
                    *["--gil", "--nonblocking", "--output", str(profile_out)],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                await asyncio.sleep(1.0)
            main_before, others_before = cpu_by_thread(pid)
            started = time.perf_counter()
            await run(client, call, requests, callers)
            elapsed = time.perf_counter() - started
            main_after, others_after = cpu_by_thread(pid)
            main, others = main_after - main_before, others_after - others_before
            if spy is not None:
                spy.send_signal(signal.SIGINT)
                await asyncio.wait_for(spy.wait(), timeout=60)
            results[name] = {
                "status": status,
                "throughput_rps": round(requests / elapsed, 1),
                "cpu_ms_per_request": round((main + others) * 1000 / requests, 3),
                "event_loop_thread_ms": round(main * 1000 / requests, 3),
                "other_threads_ms": round(others * 1000 / requests, 3),
            }
    floor = results["floor: GET /v1/no-such-path"]["cpu_ms_per_request"]
    for figures in results.values():
        figures["ratio_to_floor"] = round(figures["cpu_ms_per_request"] / floor, 2)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--profile")
    parser.add_argument("--profile-out", type=Path, default=Path("profile.txt"))
    parser.add_argument("--postgres", help="a database URL for the service's data")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        sandbox = SandboxProcess(Path(data_dir), database_url=args.postgres)
        try:
            auth = sandbox.credentials()
            results = asyncio.run(
                measure(
                    sandbox,
                    auth,
                    args.requests,
                    args.concurrency,
                    args.only,
                    args.profile,
                    args.profile_out,
                )
            )
        finally:
            sandbox.interrupt()
    print(json.dumps({"load_average": os.getloadavg(), "results": results}, indent=2))


if __name__ == "__main__":
    main()
