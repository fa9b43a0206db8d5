"""Latency and throughput of the foundation endpoints, beside the server's own floor.

Starts the sandbox (`ramp dev`) on free ports in a temporary data dir, then measures,
in one run and against the same server:

- floor: `GET /v1/no-such-path` (routing, the error envelope, HTTP; no auth, no database);
- each endpoint: sequential latency (p50/p95/p99) and throughput with N concurrent callers.

Each endpoint is measured in `--rounds` rounds, each right after a measure of the floor
of its own: a ratio is taken between the two neighbours, and the ratio reported is the
median of the rounds' (on a shared 2-core machine the floor alone moved by 2x between
runs measured minutes apart, which a single floor per run charged to every endpoint).
Prints JSON with every figure (medians of the rounds), each round's ratios and their
median. Usage:

    .venv/bin/python -m bench.foundation_api [--requests 300] [--concurrency 20] [--rounds 3]
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


async def sequential(
    client: httpx.AsyncClient, call: Call, count: int, first: int = 0
) -> dict[str, float]:
    timings = []
    for i in range(first, first + count):
        start = time.perf_counter()
        response = await call(client, i)
        timings.append((time.perf_counter() - start) * 1000)
        assert response.status_code < 500, response.text
    return {
        "p50_ms": round(statistics.median(timings), 2),
        "p95_ms": round(percentile(timings, 0.95), 2),
        "p99_ms": round(percentile(timings, 0.99), 2),
    }


async def throughput(
    client: httpx.AsyncClient, call: Call, count: int, callers: int, first: int = 100_000
) -> float:
    counter = iter(range(first, first + count))

    async def caller() -> None:
        for i in counter:
            response = await call(client, i)
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


FLOOR = "floor: GET /v1/no-such-path"


async def measure(
    api: str, auth: tuple[str, str], requests: int, callers: int, rounds: int
) -> dict[str, Any]:
    reader, intent_id = await customer_with_intent(api, auth)
    calls = read_calls(auth, reader, intent_id, customer_prefix="bench")
    # Idle connections are let go well before uvicorn's own 5 s keep-alive timeout: with
    # both at 5 s, a connection left idle through a slow sequential measure was now and
    # then reused just as the server closed it (a ReadError, 2 runs of 6).
    limits = httpx.Limits(
        max_connections=callers, max_keepalive_connections=callers, keepalive_expiry=2.0
    )
    figures: dict[str, list[dict[str, float]]] = {name: [] for name in calls}
    ratios: dict[str, list[tuple[float, float]]] = {name: [] for name in calls}
    async with httpx.AsyncClient(base_url=api, limits=limits, timeout=30) as client:
        for call in calls.values():
            await sequential(client, call, 20, first=10_000_000)  # warm-up: connections, caches
        for round_ in range(rounds):
            for name, call in calls.items():
                if name == FLOOR:
                    continue
                # The floor right before the endpoint: the pair shares the machine's moment.
                floor = await _figures(client, calls[FLOOR], requests, callers, 0)
                # Fresh indices each round: a create stays a create.
                endpoint = await _figures(client, call, requests, callers, round_ * 1_000_000)
                figures[FLOOR].append(floor)
                figures[name].append(endpoint)
                ratios[name].append(
                    (
                        endpoint["p50_ms"] / floor["p50_ms"],
                        endpoint["throughput_rps"] / floor["throughput_rps"],
                    )
                )
    results: dict[str, Any] = {}
    for name, measured in figures.items():
        summary: dict[str, Any] = {
            key: round(statistics.median(m[key] for m in measured), 2) for key in measured[0]
        }
        if name == FLOOR:
            summary |= {"p50_ratio_to_floor": 1.0, "throughput_ratio_to_floor": 1.0}
        else:
            summary |= {
                "p50_ratio_to_floor": round(statistics.median(r[0] for r in ratios[name]), 2),
                "throughput_ratio_to_floor": round(
                    statistics.median(r[1] for r in ratios[name]), 2
                ),
                "ratios_by_round": [[round(p50, 2), round(rps, 2)] for p50, rps in ratios[name]],
            }
        results[name] = summary
    return results


async def _figures(
    client: httpx.AsyncClient, call: Call, requests: int, callers: int, first: int
) -> dict[str, float]:
    return {
        **await sequential(client, call, requests, first=first),
        "throughput_rps": await throughput(client, call, requests, callers, first + 500_000),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        sandbox = SandboxProcess(Path(data_dir))
        try:
            auth = sandbox.credentials()
            results = asyncio.run(
                measure(sandbox.api, auth, args.requests, args.concurrency, args.rounds)
            )
        finally:
            sandbox.interrupt()
    report = {
        "benchmark": "foundation_api",
        "requests_per_measure": args.requests,
        "concurrency": args.concurrency,
        "rounds": args.rounds,
        "results": results,
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
