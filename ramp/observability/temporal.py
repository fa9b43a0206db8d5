"""The request id across Temporal: a header on what a client starts, signals or updates,
read back in the workflow (whose activities then carry it on) and in each activity, so
a provider call and a webhook delivery log the request that caused them. Also the SDK
runtime whose Prometheus endpoint serves the worker's `temporal_` series.

Headers are not part of a workflow's logic: reading and adding them changes no command,
so histories replay as before.
"""

from __future__ import annotations

import socket
from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any, NoReturn

import temporalio.activity
import temporalio.workflow
from temporalio import client, worker
from temporalio.api.common.v1 import Payload
from temporalio.converter import PayloadConverter
from temporalio.runtime import PrometheusConfig, Runtime, TelemetryConfig

from ramp.observability import context

HEADER = "ramp-request-id"
PROJECT_HEADER = "ramp-project-id"
_INTENT_WORKFLOW_PREFIX = "intent-"  # ramp.intents.lifecycle.workflow_id


def _with_request_id(headers: Mapping[str, Payload]) -> Mapping[str, Payload]:
    """The headers, with the request (and project) ids of the work under way added."""
    ids = ((HEADER, context.request_id.get()), (PROJECT_HEADER, context.project_id.get()))
    added = {
        name: PayloadConverter.default.to_payloads([value])[0]
        for name, value in ids
        if value is not None and name not in headers
    }
    return {**headers, **added} if added else headers


def _id_of(headers: Mapping[str, Payload], name: str = HEADER) -> str | None:
    payload = headers.get(name)
    if payload is None:
        return None
    value = PayloadConverter.default.from_payloads([payload])[0]
    return context.sane_request_id(value if isinstance(value, str) else None)


def _bound(
    headers: Mapping[str, Payload], intent: str | None = None
) -> AbstractContextManager[None]:
    return context.bound(
        request=_id_of(headers), project=_id_of(headers, PROJECT_HEADER), intent=intent
    )


def _intent_of(workflow_id: str) -> str | None:
    if workflow_id.startswith(_INTENT_WORKFLOW_PREFIX):
        return workflow_id[len(_INTENT_WORKFLOW_PREFIX) :]
    return None


class RequestIdInterceptor(client.Interceptor, worker.Interceptor):
    """On the client: adds the request id under way to every call's headers. On the
    worker: binds it (and the intent) while a workflow or an activity runs."""

    def intercept_client(self, next: client.OutboundInterceptor) -> client.OutboundInterceptor:
        return _ClientOutbound(next)

    def intercept_activity(
        self, next: worker.ActivityInboundInterceptor
    ) -> worker.ActivityInboundInterceptor:
        return _ActivityInbound(next)

    def workflow_interceptor_class(
        self, input: worker.WorkflowInterceptorClassInput
    ) -> type[worker.WorkflowInboundInterceptor]:
        return _WorkflowInbound


class _ClientOutbound(client.OutboundInterceptor):
    async def start_workflow(
        self, input: client.StartWorkflowInput
    ) -> client.WorkflowHandle[Any, Any]:
        input.headers = _with_request_id(input.headers)
        return await super().start_workflow(input)

    async def signal_workflow(self, input: client.SignalWorkflowInput) -> None:
        input.headers = _with_request_id(input.headers)
        await super().signal_workflow(input)

    async def start_workflow_update(
        self, input: client.StartWorkflowUpdateInput
    ) -> client.WorkflowUpdateHandle[Any]:
        input.headers = _with_request_id(input.headers)
        return await super().start_workflow_update(input)

    async def start_update_with_start_workflow(
        self, input: client.StartWorkflowUpdateWithStartInput
    ) -> client.WorkflowUpdateHandle[Any]:
        start = input.start_workflow_input
        start.headers = _with_request_id(start.headers)
        update = input.update_workflow_input
        update.headers = _with_request_id(update.headers)
        return await super().start_update_with_start_workflow(input)


class _ActivityInbound(worker.ActivityInboundInterceptor):
    async def execute_activity(self, input: worker.ExecuteActivityInput) -> Any:
        info = temporalio.activity.info()
        with _bound(input.headers, _intent_of(info.workflow_id or "")):
            return await super().execute_activity(input)


class _WorkflowInbound(worker.WorkflowInboundInterceptor):
    def init(self, outbound: worker.WorkflowOutboundInterceptor) -> None:
        super().init(_WorkflowOutbound(outbound))

    async def execute_workflow(self, input: worker.ExecuteWorkflowInput) -> Any:
        with _bound(input.headers):
            return await super().execute_workflow(input)

    async def handle_signal(self, input: worker.HandleSignalInput) -> None:
        with _bound(input.headers):
            await super().handle_signal(input)

    async def handle_update_handler(self, input: worker.HandleUpdateInput) -> Any:
        with _bound(input.headers):
            return await super().handle_update_handler(input)


class _WorkflowOutbound(worker.WorkflowOutboundInterceptor):
    def start_activity(
        self, input: worker.StartActivityInput
    ) -> temporalio.workflow.ActivityHandle[Any]:
        input.headers = _with_request_id(input.headers)
        return super().start_activity(input)

    def start_local_activity(
        self, input: worker.StartLocalActivityInput
    ) -> temporalio.workflow.ActivityHandle[Any]:
        input.headers = _with_request_id(input.headers)
        return super().start_local_activity(input)

    async def start_child_workflow(
        self, input: worker.StartChildWorkflowInput
    ) -> temporalio.workflow.ChildWorkflowHandle[Any, Any]:
        input.headers = _with_request_id(input.headers)
        return await super().start_child_workflow(input)

    def continue_as_new(self, input: worker.ContinueAsNewInput) -> NoReturn:
        input.headers = _with_request_id(input.headers)
        super().continue_as_new(input)


def free_loopback_port() -> int:
    """A port of 127.0.0.1 free now (for the SDK's endpoint, which takes an address)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def prometheus_runtime(bind_address: str) -> Runtime:
    """An SDK runtime whose metrics (`temporal_...`, durations in seconds) are served at
    http://BIND_ADDRESS/metrics. One per process: the clients that share it report
    into the same series."""
    return Runtime(
        telemetry=TelemetryConfig(
            metrics=PrometheusConfig(bind_address=bind_address, durations_as_seconds=True)
        )
    )
