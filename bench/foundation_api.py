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


# A customer's pair of accounts, as the README's walk registers it.
ACCOUNTS = {
    "src": "USD",
    "dest": "USDC_ETHEREUM",
    "source": {
        "rails": "ACH",
        "currency": "USD",
        "countryCode": "US",
        "institutionName": "JPMorgan Chase Bank",
        "accountIdentifier": {"routingNumber": "021000021", "accountNumber": "000123456789"},
        "beneficiary": {"name": "Alex Morgan", "taxId": "12-3456789"},
    },
    "destination": {
        "address": "0x742d35Cc6634C0532925a3b844Bc454e4438f44e",
        "currency": "USDC_ETHEREUM",
    },
}


async def customer_with_intent(api: str, auth: tuple[str, str]) -> tuple[dict[str, str], str]:
    """A customer (its bearer headers) with one intent waiting on its compliance plan:
    what the reads of `GET /v1/intent/{id}` and `GET /v1/intent` find."""
    async with httpx.AsyncClient(base_url=api, timeout=30) as client:
        customer = await client.post("/v1/customers", json={"id": "bench-reader"}, auth=auth)
        headers = {"Authorization": f"Bearer {customer.json()['access_token']}"}
        pair = await client.post("/v1/customers/external-accounts", json=ACCOUNTS, headers=headers)
        assert pair.status_code == 201, pair.text
        created = await client.post(
            "/v1/intent",
            json={
                "srcExternalAccountId": pair.json()["source"]["id"],
                "destExternalAccountId": pair.json()["destination"]["id"],
                "amount": "100.00",
            },
            headers=headers,
        )
        assert created.status_code == 201, created.text
        return headers, created.json()["intent"]["id"]


def read_calls(
    auth: tuple[str, str], reader: dict[str, str], intent_id: str, *, customer_prefix: str
) -> dict[str, Call]:
    """The requests measured, by name: the floor, the reads clients make most, a create."""
    return {
        "floor: GET /v1/no-such-path": lambda c, i: c.get("/v1/no-such-path"),
        "GET /v1/currencies/supported": lambda c, i: c.get("/v1/currencies/supported", auth=auth),
        "GET /v1/external-accounts/requirements": lambda c, i: c.get(
            "/v1/external-accounts/requirements",
            params={"src": "USD", "dest": "USDC_ETHEREUM"},
            auth=auth,
        ),
        "GET /v1/intent/{id}": lambda c, i: c.get(f"/v1/intent/{intent_id}", headers=reader),
        "GET /v1/intent (list)": lambda c, i: c.get("/v1/intent", headers=reader),
        "POST /v1/customers (create)": lambda c, i: c.post(
            "/v1/customers", json={"id": f"{customer_prefix}-{i}"}, auth=auth
        ),
    }


async def measure(api: str, auth: tuple[str, str], requests: int, callers: int) -> dict[str, Any]:
    reader, intent_id = await customer_with_intent(api, auth)
    calls = read_calls(auth, reader, intent_id, customer_prefix="bench")
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
