"""Latency and throughput of the foundation endpoints, beside the server's own floor.

Starts the sandbox (`ramp dev`) on free ports in a temporary data dir, then measures,
in one run and against the same server:

- floor: `GET /v1/no-such-path` (routing, the error envelope, HTTP; no auth, no database);
- each endpoint: sequential latency (p50/p95/p99) and throughput with N concurrent callers.

Prints JSON with every figure and its ratio to the floor. Usage:

    .venv/bin/python -m bench.foundation_api [--requests 300] [--concurrency 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

from bench.sandbox import SandboxProcess

Call = Callable[[httpx.AsyncClient, int], Awaitable[httpx.Response]]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def sequential(client: httpx.AsyncClient, call: Call, count: int) -> dict[str, float]:
    timings = []
    for i in range(count):
        start = time.perf_counter()
        response = await call(client, i)
        timings.append((time.perf_counter() - start) * 1000)
        assert response.status_code < 500, response.text
    return {
        "p50_ms": round(statistics.median(timings), 2),
        "p95_ms": round(percentile(timings, 0.95), 2),
        "p99_ms": round(percentile(timings, 0.99), 2),
    }


async def throughput(client: httpx.AsyncClient, call: Call, count: int, callers: int) -> float:
    counter = iter(range(count))

    async def caller() -> None:
        for i in counter:
            response = await call(client, 100_000 + i)
            assert response.status_code < 500, response.text

    start = time.perf_counter()
    await asyncio.gather(*(caller() for _ in range(callers)))
    return round(count / (time.perf_counter() - start), 1)


async def measure(api: str, auth: tuple[str, str], requests: int, callers: int) -> dict[str, Any]:
    calls: dict[str, Call] = {
        "floor: GET /v1/no-such-path": lambda c, i: c.get("/v1/no-such-path"),
        "GET /v1/currencies/supported": lambda c, i: c.get("/v1/currencies/supported", auth=auth),
        "GET /v1/external-accounts/requirements": lambda c, i: c.get(
            "/v1/external-accounts/requirements",
            params={"src": "USD", "dest": "USDC_ETHEREUM"},
            auth=auth,
        ),
        "POST /v1/customers (create)": lambda c, i: c.post(
            "/v1/customers", json={"id": f"bench-{i}"}, auth=auth
        ),
    }
    limits = httpx.Limits(max_connections=callers, max_keepalive_connections=callers)
    results: dict[str, Any] = {}
    async with httpx.AsyncClient(base_url=api, limits=limits, timeout=30) as client:
        for name, call in calls.items():
            await sequential(client, call, 20)  # warm-up: connections, caches
            results[name] = {
                **await sequential(client, call, requests),
                "throughput_rps": await throughput(client, call, requests, callers),
            }
    floor = results["floor: GET /v1/no-such-path"]
    for figures in results.values():
        figures["p50_ratio_to_floor"] = round(figures["p50_ms"] / floor["p50_ms"], 2)
        figures["throughput_ratio_to_floor"] = round(
            figures["throughput_rps"] / floor["throughput_rps"], 2
        )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        sandbox = SandboxProcess(Path(data_dir))
        try:
            auth = sandbox.credentials()
            results = asyncio.run(measure(sandbox.api, auth, args.requests, args.concurrency))
        finally:
            sandbox.interrupt()
    report = {
        "benchmark": "foundation_api",
        "requests_per_measure": args.requests,
        "concurrency": args.concurrency,
        "results": results,
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
