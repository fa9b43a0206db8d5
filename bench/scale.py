"""`POST /v1/intent` throughput with one and with N of each process, on PostgreSQL.

Starts `ramp dev` on a throwaway PostgreSQL schema (one Temporal dev server, one API, one
worker, one webhook dispatcher), onboards a customer, and measures the auto-complete
create at `--concurrency` callers with one of each process; then starts N-1 more
`ramp api`, `ramp worker` and `ramp dispatcher` processes (the commands a deployment
runs) on the same database and Temporal server, spreads the callers over the N APIs, and
measures again. One webhook endpoint (a loopback receiver) is subscribed to every event
in both measures. Prints one JSON object with both figures, their ratio and the CPU time
per request of each kind of process.

On one machine the processes share its cores: this shows whether N of each add
throughput there and what each costs, not what N machines would give (docs/performance.md).

    .venv/bin/python -m bench.scale --workers 2 --apis 2 \\
        [--postgres postgresql://127.0.0.1:5432/test] [--requests 400] [--concurrency 20]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from bench import webhooks
from bench.intents import (
    Payer,
    basic,
    bearer,
    cpu_seconds,
    database,
    environment,
    expect,
    onboard,
    register_payer,
)
from bench.sandbox import SandboxProcess, descendants, free_port

ROLES = {
    "start-dev": "temporal_server",
    "devstack worker": "ramp_worker",
    "devstack dispatcher": "ramp_dispatcher",
    "devstack api": "ramp_api",
}


RETRIES = [0]  # creates answered 503 and sent again, in this run


def role_pids(root_pids: list[int]) -> dict[str, list[int]]:
    """Every process of the stack by its role (several of a kind once scaled out)."""
    found: dict[str, list[int]] = {}
    for pid in {p for root in root_pids for p in (root, *descendants(root))}:
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except FileNotFoundError:
            continue
        for marker, role in ROLES.items():
            if marker in command:
                found.setdefault(role, []).append(pid)
    return found


def cpu_by_role(pids: dict[str, list[int]]) -> dict[str, float]:
    return {role: sum(cpu_seconds(pid) for pid in group) for role, group in pids.items()}


async def throughput(urls: list[str], payer: Payer, count: int, callers: int) -> float:
    """`count` creates, `callers` at a time, the callers spread evenly over `urls`."""
    numbers = iter(range(count))
    body = payer.intent_body()
    limits = httpx.Limits(max_connections=callers, max_keepalive_connections=callers)
    async with contextlib.AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(
                httpx.AsyncClient(base_url=url, limits=limits, timeout=60)
            )
            for url in urls
        ]

        async def caller(http: httpx.AsyncClient) -> None:
            for _ in numbers:
                # As a client does: a 503 (the machine too busy to answer within the
                # service's 15 s) is sent again with its key; the retries are counted.
                headers = {**bearer(payer.token), "Idempotency-Key": str(uuid.uuid4())}
                while (
                    response := await http.post("/v1/intent", json=body, headers=headers)
                ).status_code == 503:
                    RETRIES[0] += 1
                    await asyncio.sleep(float(response.headers["retry-after"]))
                assert expect(response, 201)["transaction"] is not None, response.text

        start = time.perf_counter()
        await asyncio.gather(*(caller(clients[i % len(clients)]) for i in range(callers)))
        return round(count / (time.perf_counter() - start), 1)


async def measure(
    urls: list[str], payer: Payer, plan: argparse.Namespace, roots: list[int]
) -> dict[str, Any]:
    await throughput(urls, payer, plan.warmup, plan.concurrency)
    pids = role_pids(roots)
    before = cpu_by_role(pids)
    RETRIES[0] = 0
    rps = await throughput(urls, payer, plan.requests, plan.concurrency)
    after = cpu_by_role(pids)
    return {
        "retried_after_503": RETRIES[0],
        "processes": {role: len(group) for role, group in sorted(pids.items())},
        "throughput_rps": rps,
        "cpu_ms_per_request": {
            role: round((after[role] - before[role]) * 1000 / plan.requests, 1)
            for role in sorted(pids)
        },
    }


@contextlib.contextmanager
def more_processes(
    sandbox: SandboxProcess, data_dir: Path, database_url: str, each: int
) -> Iterator[tuple[list[str], list[subprocess.Popen[bytes]]]]:
    """`each` more of `ramp api`, `ramp worker` and `ramp dispatcher`, on the sandbox's
    database and Temporal server; yields the new APIs' URLs and the processes."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("RAMP_", "DATABASE"))},
        "RAMP_DATA_DIR": str(data_dir),
        "DATABASE_URL": database_url,
        "TEMPORAL_ADDRESS": sandbox.temporal_address,
        # As `ramp dev` runs its worker on PostgreSQL: webhooks from the dispatchers.
        "RAMP_WEBHOOK_DISPATCH": "separate",
    }
    ramp = [sys.executable, "-m", "devstack"]
    urls: list[str] = []
    started: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(each):
            port = free_port()
            urls.append(f"http://127.0.0.1:{port}")
            for command in (
                [*ramp, "api", "--port", str(port)],
                [*ramp, "worker"],
                [*ramp, "dispatcher"],
            ):
                started.append(
                    subprocess.Popen(
                        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                    )
                )
        yield urls, started
    finally:
        for process in started:
            process.terminate()
        for process in started:
            process.wait(timeout=30)


async def until_answering(urls: list[str]) -> None:
    async with httpx.AsyncClient(timeout=5) as http:
        for url in urls:
            async with asyncio.timeout(120):
                while True:
                    with contextlib.suppress(httpx.TransportError):
                        if (await http.get(f"{url}/healthz")).status_code == 200:
                            break
                    await asyncio.sleep(0.2)


async def run(
    sandbox: SandboxProcess, data_dir: Path, database_url: str, plan: argparse.Namespace
) -> dict[str, Any]:
    project = basic(*sandbox.credentials(timeout=300))
    async with httpx.AsyncClient(base_url=sandbox.api, timeout=30) as http:
        payer = await register_payer(http, project)
        await onboard(http, project, payer)
    figures: dict[str, Any] = {}
    with webhooks.receiving() as receiver:
        async with httpx.AsyncClient(base_url=sandbox.api, timeout=30) as http:
            await webhooks.subscribed(http, project, receiver, 1)
        figures["one_of_each"] = await measure([sandbox.api], payer, plan, [sandbox.process.pid])
        with more_processes(sandbox, data_dir, database_url, plan.apis - 1) as (urls, extra):
            await until_answering(urls)
            # The new workers poll once they are up; the warm-up round lets them join.
            figures[f"{plan.apis}_of_each"] = await measure(
                [sandbox.api, *urls], payer, plan, [sandbox.process.pid, *(p.pid for p in extra)]
            )
        figures["webhooks_received"] = receiver.received
    one = figures["one_of_each"]["throughput_rps"]
    many = figures[f"{plan.apis}_of_each"]["throughput_rps"]
    figures["throughput_ratio"] = round(many / one, 2)
    return figures


def parse_plan() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--apis", type=int, default=2, help="API processes in the second measure")
    parser.add_argument(
        "--workers",
        type=int,
        default=2,
        help="worker (and dispatcher) processes in the second measure; equal to --apis",
    )
    parser.add_argument("--requests", type=int, default=400, help="creates per measure")
    parser.add_argument("--warmup", type=int, default=40)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--postgres", default="postgresql://127.0.0.1:5432/test", metavar="URL")
    plan = parser.parse_args()
    if plan.workers != plan.apis or plan.apis < 2:
        parser.error("--workers and --apis must be equal and at least 2 (N of each process)")
    return plan


def main() -> None:
    plan = parse_plan()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp, database(plan.postgres) as database_url:
        assert database_url is not None
        data_dir = Path(tmp) / f"data-{uuid.uuid4().hex[:6]}"
        sandbox = SandboxProcess(data_dir, database_url)
        try:
            figures = asyncio.run(run(sandbox, data_dir, database_url, plan))
        finally:
            sandbox.interrupt()
    print(
        json.dumps(
            {
                "benchmark": "scale",
                "request": "POST /v1/intent (auto-complete), one webhook endpoint",
                **figures,
                "plan": {
                    "requests": plan.requests,
                    "warmup": plan.warmup,
                    "concurrency": plan.concurrency,
                    "n_of_each": plan.apis,
                },
                "environment": environment("PostgreSQL (throwaway schema)", load_before),
            },
            indent=2,
        )
    )
    sys.stdout.flush()
    os._exit(0)  # the Temporal SDK's native threads can abort finalisation (bench/intents.py)


if __name__ == "__main__":
    main()
