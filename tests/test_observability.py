"""What operators see (docs/operations.md): request ids on answers, logs and Temporal
headers; one trace from POST /intent to the webhook POST; the Prometheus series of the
API, the worker (with the Temporal SDK's own) and the dispatcher; /readyz.

Tracing is on for this module only (an in-memory exporter), from before the app and the
worker are built, as a process with RAMP_OTLP_ENDPOINT set has it from its start.
"""

from __future__ import annotations

import asyncio
import contextvars
import io
import json
import logging
import os
import subprocess
import sys
import urllib.request
from collections.abc import AsyncIterator, Generator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families
from temporalio import activity
from temporalio.client import Client
from temporalio.worker import Worker

from api.app import create_app
from devstack.stack import DevStack
from ramp.config import Settings
from ramp.intents.lifecycle import workflow_id
from ramp.observability import context
from ramp.observability.backlog import sample_backlogs
from ramp.observability.exposition import (
    MULTIPROCESS_DIR_VARIABLE,
    metrics_registry,
    serve_metrics,
)
from ramp.observability.logs import ReadableFormatter, RequestContext, json_formatter
from ramp.observability.process import observe_worker
from ramp.observability.temporal import HEADER, free_loopback_port
from ramp.observability.tracing import (
    start_otlp_tracing,
    start_tracing,
    stop_tracing,
    tracer,
)
from ramp.temporal import connect
from tests.helpers.payments import create_intent, register_accounts
from tests.helpers.projects import ProjectCredentials, make_customer
from tests.helpers.servers import derive_settings, serve
from tests.helpers.webhook_api import add_endpoint
from tests.helpers.webhook_receiver import Receiver, receiving

# About request ids, traces and metrics, not the database: one of the two passes runs it.
pytestmark = pytest.mark.either_database

EXPORTED = InMemorySpanExporter()


@pytest.fixture(scope="module", autouse=True)
def tracing() -> Iterator[InMemorySpanExporter]:
    start_tracing("ramp-tests", SimpleSpanProcessor(EXPORTED))
    yield EXPORTED
    stop_tracing()


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    async with receiving() as running:
        yield running


def scrape(url: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a metrics listener, by name and labels."""
    with urllib.request.urlopen(url, timeout=5) as answer:  # noqa: S310 (loopback)
        text = answer.read().decode()
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def sample(
    samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str
) -> float:
    wanted = set(labels.items())
    return sum(value for (n, found), value in samples.items() if n == name and wanted <= found)


# --- request ids ---------------------------------------------------------------------


async def test_every_answer_names_its_request_id(client: httpx.AsyncClient) -> None:
    mine = await client.get("/v1/no-such-thing", headers={"X-Request-Id": "req-42.a"})
    assert mine.headers["X-Request-Id"] == "req-42.a"
    assert mine.json()["requestId"] == "req-42.a"
    # Blanks, or too long: not echoed (it lands in logs as it is); ours instead.
    for insane in ("two words", "x" * 200):
        answer = await client.get("/healthz", headers={"X-Request-Id": insane})
        assert answer.headers["X-Request-Id"] not in (insane, "")
    first, second = (await client.get("/healthz"), await client.get("/healthz"))
    assert first.headers["X-Request-Id"] != second.headers["X-Request-Id"]


async def test_log_lines_written_while_serving_carry_the_request_id(
    migrated: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    # Temporal unreachable: /readyz logs why, while serving.
    broken = derive_settings(migrated, TEMPORAL_ADDRESS="127.0.0.1:1")
    caplog.handler.addFilter(RequestContext())
    async with serve(create_app(broken)) as http:
        answer = await http.get("/readyz", headers={"X-Request-Id": "logged-1"})
    assert answer.status_code == 503
    written = [r for r in caplog.records if "readiness check temporal failed" in r.getMessage()]
    assert written
    assert all(getattr(r, "request_id", None) == "logged-1" for r in written)


def test_log_lines_are_json_or_readable_with_the_ids() -> None:
    record_to = io.StringIO()
    handler = logging.StreamHandler(record_to)
    handler.addFilter(RequestContext())
    logger = logging.getLogger("ramp.tests.observability")
    logger.addHandler(handler)
    try:
        with context.bound(request="r-1", project="p-1", intent="i-1"):
            handler.setFormatter(json_formatter())
            logger.warning("provider %s slow", "atlas")
            handler.setFormatter(ReadableFormatter("%(levelname)s %(name)s: %(message)s"))
            logger.warning("provider %s slow", "atlas")
    finally:
        logger.removeHandler(handler)
    as_json, readable = record_to.getvalue().splitlines()
    line = json.loads(as_json)
    assert line["message"] == "provider atlas slow"
    assert (line["level"], line["logger"]) == ("WARNING", "ramp.tests.observability")
    assert (line["request_id"], line["project_id"], line["intent_id"]) == ("r-1", "p-1", "i-1")
    assert line["timestamp"].endswith("+00:00")
    assert readable == (
        "WARNING ramp.tests.observability: provider atlas slow"
        " [request_id=r-1 project_id=p-1 intent_id=i-1]"
    )


# --- one trace, one request id: API, workflow, activities, webhook -------------------


def _trace_of(spans: tuple[ReadableSpan, ...], root: ReadableSpan) -> list[ReadableSpan]:
    assert root.context is not None
    return [
        s for s in spans if s.context is not None and s.context.trace_id == root.context.trace_id
    ]


@pytest.mark.usefixtures("worker")
async def test_one_intent_is_one_trace_and_carries_its_request_id(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    receiver: Receiver,
    temporal_client: Client,
    tracing: InMemorySpanExporter,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.handler.addFilter(RequestContext())
    caplog.set_level(logging.DEBUG, logger="activities.providers")
    caplog.set_level(logging.DEBUG, logger="ramp.webhooks.dispatcher")
    await add_endpoint(client, project, receiver.url)
    customer = await make_customer(client, project, "traced")
    token: str = customer["access_token"]
    accounts = await register_accounts(client, token)
    tracing.clear()
    created = await create_intent(client, token, accounts, headers={"X-Request-Id": "trace-me"})
    assert created.status_code == 201, created.text
    intent_id = created.json()["intent"]["id"]
    await receiver.wait_for(lambda got: len(got) >= 1)

    async def delivery_span() -> ReadableSpan:
        while True:
            for span in tracing.get_finished_spans():
                if span.name == "webhook delivery attempt":
                    return span
            await asyncio.sleep(0.02)

    delivered = await asyncio.wait_for(delivery_span(), 10)
    spans = tracing.get_finished_spans()
    server = next(s for s in spans if s.name == "POST /v1/intent" and s.parent is None)
    names = {s.name for s in _trace_of(spans, server)}
    assert delivered.name in names  # the webhook POST, in the request's trace
    assert "StartUpdateWithStartWorkflow:IntentWorkflow" in names, names  # API's client
    assert any(n.startswith("HandleUpdate:") for n in names), names  # the workflow
    assert "RunActivity:record_intent" in names, names  # an activity

    # The request id travelled in the workflow's headers, and on into its activities: a
    # provider call and the webhook attempt log it (sandbox providers are local
    # activities, whose headers no history shows).
    history = await temporal_client.get_workflow_handle(workflow_id(intent_id)).fetch_history()
    started = next(
        e.workflow_execution_started_event_attributes
        for e in history.events
        if e.HasField("workflow_execution_started_event_attributes")
    )
    assert json.loads(started.header.fields[HEADER].data) == "trace-me"
    provider_lines = [r for r in caplog.records if r.name == "activities.providers"]
    attempt_lines = [r for r in caplog.records if r.name == "ramp.webhooks.dispatcher"]
    assert provider_lines
    assert attempt_lines
    for line in provider_lines + attempt_lines:
        assert getattr(line, "request_id", None) == "trace-me", line.getMessage()
    assert all(getattr(r, "intent_id", None) == intent_id for r in provider_lines)
    assert all(getattr(r, "project_id", None) == project.project_id for r in provider_lines)


async def test_spans_go_to_the_configured_otlp_endpoint(receiver: Receiver) -> None:
    # The collector's address as an operator writes it; /v1/traces is OTLP/HTTP's path.
    exporting = start_otlp_tracing(receiver.url.rstrip("/"), "ramp-tests")
    assert exporting is not None
    assert start_otlp_tracing("", "ramp-tests") is None  # none configured: nothing exported
    try:
        with tracer().start_as_current_span("exported"):
            pass
        await asyncio.to_thread(exporting.force_flush)
        posted = await receiver.wait_for(lambda got: len(got) >= 1)
    finally:
        # While the collector still answers (a flush to a closed one waits on retries).
        await asyncio.to_thread(exporting.shutdown)
    assert posted[0].path == urlsplit(receiver.url).path.rstrip("/") + "/v1/traces"
    assert posted[0].headers["content-type"] == "application/x-protobuf"


# --- metrics --------------------------------------------------------------------------


@pytest.mark.usefixtures("worker")
async def test_the_api_and_worker_series_count_what_happened(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    receiver: Receiver,
    sessions: Any,
) -> None:
    await add_endpoint(client, project, receiver.url)
    customer = await make_customer(client, project, "counted")
    token: str = customer["access_token"]
    accounts = await register_accounts(client, token)
    server = serve_metrics("127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.server_port}/metrics"
    try:
        before = await asyncio.to_thread(scrape, url)
        assert (await create_intent(client, token, accounts)).status_code == 201
        missing = await client.get("/v1/intent/nope", headers={"Authorization": f"Bearer {token}"})
        assert missing.status_code == 404
        await receiver.wait_for(lambda got: len(got) >= 1)
        await sample_backlogs(sessions)

        async def scraped_after_the_attempt() -> dict[Any, float]:
            while True:
                now = await asyncio.to_thread(scrape, url)
                if sample(now, "ramp_webhook_attempts_total", outcome="succeeded") > sample(
                    before, "ramp_webhook_attempts_total", outcome="succeeded"
                ):
                    return now
                await asyncio.sleep(0.05)

        after = await asyncio.wait_for(scraped_after_the_attempt(), 10)
    finally:
        server.shutdown()
        server.server_close()

    def grew(name: str, **labels: str) -> float:
        return sample(after, name, **labels) - sample(before, name, **labels)

    assert grew("ramp_http_requests_total", route="/v1/intent", method="POST", status="201") == 1
    # By the route's template, never by the id a client sent.
    assert grew("ramp_http_requests_total", route="/v1/intent/{id}", status="404") == 1
    assert not any("nope" in dict(labels).get("route", "") for _, labels in after)
    assert grew("ramp_http_request_duration_seconds_count", route="/v1/intent") == 1
    assert grew("ramp_intents_created_total") == 1
    assert grew("ramp_provider_calls_total", outcome="ok") >= 1
    assert grew("ramp_provider_call_duration_seconds_count") >= 1
    assert grew("ramp_webhook_attempt_duration_seconds_count") >= 1
    assert ("ramp_webhook_outbox_due", frozenset()) in after
    assert ("ramp_webhook_outbox_oldest_due_age_seconds", frozenset()) in after
    assert ("ramp_provider_event_relay_backlog", frozenset()) in after
    assert sample(after, "ramp_provider_accounts", status="HEALTHY") >= 1


async def test_the_worker_listener_serves_the_temporal_sdk_series(
    migrated: Settings, temporal_client: Client
) -> None:
    port = free_loopback_port()
    settings = derive_settings(migrated, RAMP_METRICS_PORT=str(port))
    telemetry = observe_worker(settings)
    try:
        sdk_client = await connect(settings, runtime=telemetry.runtime)

        @activity.defn
        async def nothing() -> None:
            return None

        async with Worker(sdk_client, task_queue="obs-sdk-metrics", activities=[nothing]):
            samples = await asyncio.to_thread(scrape, f"http://127.0.0.1:{port}/metrics")
    finally:
        telemetry.close()
    names = {name for name, _ in samples}
    assert any(name.startswith("temporal_") for name in names), sorted(names)[:20]
    assert any(name.startswith("ramp_") for name in names)


def test_api_processes_sharing_a_multiprocess_dir_report_their_sum(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two API processes count a request each; any process of the directory serves both.
    count_one = (
        "from ramp.observability import metrics; "
        "metrics.HTTP_REQUESTS.labels('/v1/intent', 'POST', '201').inc()"
    )
    env = {**os.environ, MULTIPROCESS_DIR_VARIABLE: str(tmp_path)}
    for _ in range(2):
        subprocess.run([sys.executable, "-c", count_one], env=env, check=True, timeout=60)
    monkeypatch.setenv(MULTIPROCESS_DIR_VARIABLE, str(tmp_path))
    text = generate_latest(metrics_registry()).decode()
    samples = {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }
    assert sample(samples, "ramp_http_requests_total", route="/v1/intent", status="201") == 2


def test_ramp_dev_metrics_ports_follow_the_api_s(tmp_path: Path, migrated: Settings) -> None:
    stack = DevStack(
        host="127.0.0.1",
        port=8000,
        temporal_port=7233,
        ui_port=8233,
        temporal_address=None,
        data_dir=tmp_path,
        metrics_port=9464,
    )
    on_postgres = derive_settings(migrated, DATABASE_URL="postgresql://u@127.0.0.1/ramp")
    assert stack.metrics_urls(on_postgres) == {
        "api": "http://127.0.0.1:9464/metrics",
        "worker": "http://127.0.0.1:9465/metrics",
        "dispatcher": "http://127.0.0.1:9466/metrics",
    }
    env = stack.child_env(on_postgres)
    assert stack.metrics_env(env, "worker")["RAMP_METRICS_PORT"] == "9465"
    assert env["RAMP_METRICS_HOST"] == "127.0.0.1"
    stack.metrics_at = stack.metrics_urls(on_postgres)
    banner = stack.banner(None, 1.0)
    assert "http://127.0.0.1:8000/readyz" in banner
    assert "Metrics (worker):   http://127.0.0.1:9465/metrics" in banner


# --- readiness ------------------------------------------------------------------------


@pytest.mark.usefixtures("worker")
async def test_ready_only_with_a_worker_polling(
    client: httpx.AsyncClient, migrated: Settings
) -> None:
    ready = await client.get("/readyz")
    assert ready.status_code == 200, ready.text
    assert ready.json()["checks"] == {"database": "ok", "temporal": "ok", "worker": "ok"}

    nobody = derive_settings(migrated, RAMP_TASK_QUEUE="ramp-nobody-polls")
    async with serve(create_app(nobody)) as http:
        answer = await http.get("/readyz")
        live = await http.get("/healthz")
    assert answer.status_code == 503
    assert answer.json()["checks"] == {
        "database": "ok",
        "temporal": "ok",
        "worker": "unavailable: no worker polling",
    }
    assert live.status_code == 200  # alive all the same


class _Pause:
    def __await__(self) -> Generator[None, None, None]:
        yield


def test_ids_bound_in_a_coroutine_closed_from_another_context() -> None:
    """Temporal evicts a cached workflow by closing its coroutine from the eviction's
    own task: the ids bound inside must not fail that close (it raised ValueError,
    reported as an unraisable exception under whatever test ran then)."""

    async def run() -> None:
        with context.bound(request="req-1", project="proj-1"):
            await _Pause()

    coroutine = run()
    contextvars.copy_context().run(coroutine.send, None)  # suspended inside the block
    coroutine.close()  # from this test's context, as an eviction does
    assert context.request_id.get() is None
