"""What each serving process (`ramp api`, `ramp worker`, `ramp dispatcher`) sets up at
its start, from its settings: its log format, its traces (when an OTLP endpoint is
configured) and its metrics listener (when RAMP_METRICS_PORT is set)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from wsgiref.simple_server import WSGIServer

from prometheus_client.registry import Collector
from temporalio.runtime import Runtime

from ramp.config import Settings
from ramp.observability.exposition import TemporalSdkMetrics, serve_metrics
from ramp.observability.logs import configure_logging
from ramp.observability.temporal import free_loopback_port, prometheus_runtime
from ramp.observability.tracing import start_otlp_tracing


def configure_process_logging(settings: Settings) -> None:
    configure_logging(settings.log_format)


def observe_process(
    settings: Settings, service_name: str, extra: Iterable[Collector] = ()
) -> WSGIServer | None:
    """Starts tracing if configured, and the metrics listener if a port is set."""
    start_otlp_tracing(settings.otlp_endpoint, service_name)
    if not settings.metrics_port:
        return None
    return serve_metrics(settings.metrics_host, settings.metrics_port, extra)


@dataclass
class WorkerTelemetry:
    """The worker's: its SDK runtime (None: the SDK's default, no metrics) and its
    metrics listener, which also answers the SDK's series."""

    runtime: Runtime | None
    server: WSGIServer | None

    def close(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


def observe_worker(settings: Settings) -> WorkerTelemetry:
    if not settings.metrics_port:
        observe_process(settings, "ramp-worker")
        return WorkerTelemetry(None, None)
    # The SDK serves its series itself, on a loopback port of its own that our listener
    # reads at each scrape: one address to scrape per process.
    sdk_address = f"127.0.0.1:{free_loopback_port()}"
    runtime = prometheus_runtime(sdk_address)
    sdk = TemporalSdkMetrics(f"http://{sdk_address}/metrics")
    return WorkerTelemetry(runtime, observe_process(settings, "ramp-worker", [sdk]))
