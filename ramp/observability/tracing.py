"""OpenTelemetry tracing: off unless an OTLP endpoint is configured
(RAMP_OTLP_ENDPOINT, or the standard OTEL_EXPORTER_OTLP_ENDPOINT).

When on, one trace follows an API request (the ASGI middleware's server span) through
the Temporal client's call, the workflow's update and its activities (the SDK's
`TracingInterceptor` on client and worker) to the provider's HTTP call (httpx
instrumentation) and the webhook POST (aiohttp-client instrumentation, and the
dispatcher's own span: the attempt runs in the context of the activity that stored it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from opentelemetry import trace
from temporalio import client, worker

from ramp.observability.temporal import RequestIdInterceptor

if TYPE_CHECKING:  # the SDK and instrumentations load only when tracing is on
    from opentelemetry.sdk.trace import SpanProcessor, TracerProvider

TRACER_NAME = "ramp"
_provider: TracerProvider | None = None


def tracing_on() -> bool:
    return _provider is not None


def start_tracing(service_name: str, processor: SpanProcessor) -> TracerProvider:
    """Installs the process's tracer provider (once: OpenTelemetry's global is set once
    per process) and the HTTP client instrumentations."""
    from opentelemetry.instrumentation.aiohttp_client import AioHttpClientInstrumentor
    from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider

    global _provider
    if _provider is None:
        _provider = TracerProvider(resource=Resource.create({SERVICE_NAME: service_name}))
        trace.set_tracer_provider(_provider)
    _provider.add_span_processor(processor)
    HTTPXClientInstrumentor().instrument(tracer_provider=_provider)
    AioHttpClientInstrumentor().instrument(tracer_provider=_provider)
    return _provider


def start_otlp_tracing(endpoint: str, service_name: str) -> SpanProcessor | None:
    """Exports spans to the OTLP/HTTP collector at `endpoint`, if one is given; returns
    the exporting processor (shut down with the provider, or on its own)."""
    if not endpoint:
        return None
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    traces = endpoint.rstrip("/")
    if not traces.endswith("/v1/traces"):
        traces += "/v1/traces"
    processor = BatchSpanProcessor(OTLPSpanExporter(endpoint=traces))
    start_tracing(service_name, processor)
    return processor


def stop_tracing() -> None:
    """Flushes and stops (the global provider itself stays: OpenTelemetry's rule)."""
    from opentelemetry.instrumentation.aiohttp_client import AioHttpClientInstrumentor
    from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor

    global _provider
    if _provider is None:
        return
    HTTPXClientInstrumentor().uninstrument()
    AioHttpClientInstrumentor().uninstrument()
    _provider.shutdown()
    _provider = None


def tracer() -> trace.Tracer:
    return trace.get_tracer(TRACER_NAME)


def client_interceptors() -> list[client.Interceptor]:
    """The interceptors of every Temporal client (the worker's get them from its client)."""
    interceptors: list[client.Interceptor] = [RequestIdInterceptor()]
    if tracing_on():
        from temporalio.contrib.opentelemetry import TracingInterceptor

        interceptors.append(TracingInterceptor(tracer()))
    return interceptors


def worker_interceptors(on_client: Sequence[client.Interceptor]) -> list[worker.Interceptor]:
    """What a worker adds to the interceptors its client has already (a worker takes
    those of its client too): none for a client from `ramp.temporal.connect`."""
    from temporalio.contrib.opentelemetry import TracingInterceptor

    interceptors: list[worker.Interceptor] = []
    if not any(isinstance(i, RequestIdInterceptor) for i in on_client):
        interceptors.append(RequestIdInterceptor())
    if tracing_on() and not any(isinstance(i, TracingInterceptor) for i in on_client):
        interceptors.append(TracingInterceptor(tracer()))
    return interceptors
