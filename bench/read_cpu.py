"""CPU per read of the intent endpoints, in-process: the API app served through
`httpx.ASGITransport` (no uvicorn, no sockets) against a sandbox's database.

Starts `ramp dev` (bench/sandbox.py) to make a customer with one intent, stops it, then
builds the app from the API process's own settings and, in this process, alternates
rounds of N sequential requests to each endpoint, reading `time.process_time()` (all
threads: aiosqlite's too) and `time.thread_time()` (the event loop's) around each
round. Also counts, per request, the statements run, the calls into aiosqlite's thread
(SQLite only) and the SecretBox decryptions. Prints JSON: per endpoint, every round's
CPU milliseconds per request (the process's, the event loop thread's), the medians,
and the counts.

    .venv/bin/python -m bench.read_cpu [--requests 300] [--rounds 5] [--postgres URL]

The client's CPU is in the figures too (the same for every endpoint): compare an
endpoint with the floor of the same run, or one code with another, not with
`bench.api_cpu`'s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from bench.foundation_api import customer_with_intent
from bench.sandbox import SandboxProcess, descendants

PREFIXES = ("RAMP_", "DATABASE_URL", "TEMPORAL_")
ENDPOINTS = ("floor: GET /v1/no-such-path", "GET /v1/intent/{id}", "GET /v1/intent (list)")


def api_environment(sandbox: SandboxProcess) -> dict[str, str]:
    """The settings of the sandbox's API process (its RAMP_*, DATABASE_URL, TEMPORAL_*)."""
    for pid in descendants(sandbox.process.pid):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except FileNotFoundError:
            continue
        if b"api" in argv:
            pairs = (item.decode().partition("=") for item in environ if item)
            found = {key: value for key, _, value in pairs if key.startswith(PREFIXES)}
            if "RAMP_ENCRYPTION_KEYS" in found:
                return found
    raise RuntimeError("no API process found under ramp dev")


@contextmanager
def counted() -> Iterator[Counter[str]]:
    """Statements, trips to aiosqlite's thread and decryptions, while inside."""
    import aiosqlite.core
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    from ramp.security.encryption import SecretBox

    counts: Counter[str] = Counter()

    def statement(*_: Any) -> None:
        counts["statements"] += 1

    # aiosqlite's `_execute` (what posts a call to its thread) is untyped.
    trip: Any = aiosqlite.core.Connection._execute
    decrypt = SecretBox.decrypt

    async def counted_trip(self: Any, fn: Any, *args: Any, **kwargs: Any) -> Any:
        counts["aiosqlite_trips"] += 1
        return await trip(self, fn, *args, **kwargs)

    def counted_decrypt(self: SecretBox, token: str) -> str:
        counts["decryptions"] += 1
        return decrypt(self, token)

    event.listen(Engine, "before_cursor_execute", statement)
    aiosqlite.core.Connection._execute = counted_trip  # type: ignore[method-assign]
    SecretBox.decrypt = counted_decrypt  # type: ignore[method-assign]
    try:
        yield counts
    finally:
        event.remove(Engine, "before_cursor_execute", statement)
        aiosqlite.core.Connection._execute = trip  # type: ignore[method-assign]
        SecretBox.decrypt = decrypt  # type: ignore[method-assign]


async def measure(
    settings_env: dict[str, str],
    headers: dict[str, str],
    intent_id: str,
    requests: int,
    rounds: int,
    profile: Path | None = None,
) -> dict[str, Any]:
    from asgi_lifespan import LifespanManager

    from api.app import create_app
    from ramp.config import Settings

    # The project's budget is still counted, never reached: a 429 costs far less than a read.
    os.environ.update(settings_env, RAMP_RATE_LIMIT_PROJECT=f"{1_000_000_000}/60")
    paths = dict(
        zip(ENDPOINTS, ("/v1/no-such-path", f"/v1/intent/{intent_id}", "/v1/intent"), strict=True)
    )
    cpu: dict[str, list[float]] = {name: [] for name in ENDPOINTS}
    loop_thread: dict[str, list[float]] = {name: [] for name in ENDPOINTS}
    counts: dict[str, dict[str, float]] = {}
    statuses: dict[str, int] = {}
    async with LifespanManager(create_app(Settings())) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            for name, path in paths.items():
                for _ in range(50):  # warm-up: caches, the pool's connections
                    await client.get(path, headers=headers)
                with counted() as seen:
                    response = await client.get(path, headers=headers)
                counts[name] = dict(seen)
                statuses[name] = response.status_code
            for _ in range(rounds):
                for name, path in paths.items():
                    started, thread_started = time.process_time(), time.thread_time()
                    for _ in range(requests):
                        response = await client.get(path, headers=headers)
                        assert response.status_code == statuses[name], response.text
                    cpu[name].append((time.process_time() - started) * 1000 / requests)
                    thread = time.thread_time() - thread_started
                    loop_thread[name].append(thread * 1000 / requests)
            if profile is not None:
                await _profiled(client, paths["GET /v1/intent/{id}"], headers, requests, profile)
    return {
        name: {
            "status": statuses[name],
            "cpu_ms_per_request": [round(value, 3) for value in cpu[name]],
            "median_ms": round(statistics.median(cpu[name]), 3),
            "min_ms": round(min(cpu[name]), 3),
            "event_loop_thread_ms": [round(value, 3) for value in loop_thread[name]],
            "event_loop_thread_median_ms": round(statistics.median(loop_thread[name]), 3),
            "per_request": counts[name],
        }
        for name in ENDPOINTS
    }


async def _profiled(
    client: httpx.AsyncClient, path: str, headers: dict[str, str], requests: int, out: Path
) -> None:
    """cProfile of `requests` intent reads (the event loop's thread only), to `out`."""
    import cProfile

    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    for _ in range(requests):
        await client.get(path, headers=headers)
    profiler.disable()
    profiler.dump_stats(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--postgres", help="a database URL for the service's data")
    parser.add_argument("--profile", type=Path, help="cProfile the intent read into this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        sandbox = SandboxProcess(Path(data_dir), database_url=args.postgres)
        try:
            auth = sandbox.credentials()
            headers, intent_id = asyncio.run(customer_with_intent(sandbox.api, auth))
            settings_env = api_environment(sandbox)
        finally:
            sandbox.interrupt()
        results = asyncio.run(
            measure(settings_env, headers, intent_id, args.requests, args.rounds, args.profile)
        )
    import ramp

    report = {"code": str(Path(ramp.__file__).parent.parent), "load_average": os.getloadavg()}
    print(json.dumps({**report, "results": results}, indent=2))


if __name__ == "__main__":
    main()
