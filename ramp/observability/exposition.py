"""Where a process's metrics are scraped: `http://HOST:PORT/metrics` on a listener of
its own (RAMP_METRICS_PORT, bound to RAMP_METRICS_HOST, loopback by default), never on
the public API's port.

Several API processes on one machine each take a port of their own, or share one
registry directory (prometheus-client's multiprocess mode: PROMETHEUS_MULTIPROC_DIR set
before the processes start; any of them then serves the sum). The worker's listener also
answers the Temporal SDK's own series (`temporal_...`), read from the SDK runtime's
Prometheus endpoint on a loopback port of its own (temporal.py) at each scrape.
"""

from __future__ import annotations

import logging
import os
import urllib.request
from collections.abc import Iterable, Iterator
from wsgiref.simple_server import WSGIServer

from prometheus_client import REGISTRY, CollectorRegistry, start_http_server
from prometheus_client.metrics_core import Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import Collector

logger = logging.getLogger(__name__)

MULTIPROCESS_DIR_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
_SDK_SCRAPE_TIMEOUT_SECONDS = 2.0


class TemporalSdkMetrics(Collector):
    """The Temporal SDK runtime's series, as its Prometheus endpoint answers them now."""

    def __init__(self, url: str) -> None:
        self._url = url

    def collect(self) -> Iterator[Metric]:
        try:
            with urllib.request.urlopen(self._url, timeout=_SDK_SCRAPE_TIMEOUT_SECONDS) as answer:  # noqa: S310 (our own loopback URL)
                text = answer.read().decode()
        except OSError as error:
            logger.warning("the Temporal SDK's metrics did not answer: %s", error)
            return
        yield from text_string_to_metric_families(text)

    def describe(self) -> Iterator[Metric]:
        return iter(())  # not fetched when registered


def metrics_registry(extra: Iterable[Collector] = ()) -> CollectorRegistry:
    """What this process's listener answers: its own series (or, in multiprocess mode,
    those of every process sharing the directory) and `extra` collectors."""
    registry = CollectorRegistry(auto_describe=False)
    if os.environ.get(MULTIPROCESS_DIR_VARIABLE):
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry.register(REGISTRY)
    for collector in extra:
        registry.register(collector)
    return registry


def serve_metrics(host: str, port: int, extra: Iterable[Collector] = ()) -> WSGIServer:
    """Starts the listener (a daemon thread); `shutdown()` the server to stop it."""
    server, _thread = start_http_server(port, addr=host, registry=metrics_registry(extra))
    logger.info("metrics at http://%s:%d/metrics", host, server.server_port)
    return server
