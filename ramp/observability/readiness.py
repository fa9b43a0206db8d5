"""Is this process ready for traffic? Its database and Temporal answer, and (for the
API) some worker polls the service's task queue: without one, intents would be
accepted and never move. `/healthz` stays the liveness check (the process runs)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine
from temporalio.api.enums.v1 import TaskQueueKind, TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client

CHECK_TIMEOUT_SECONDS = 3.0
READY = "ok"
logger = logging.getLogger(__name__)


class NoWorker(RuntimeError):
    """Temporal answers, but no worker has polled the task queue lately."""


async def database_answers(engine: AsyncEngine) -> None:
    async with engine.connect() as connection:
        await connection.execute(text("SELECT 1"))


async def temporal_answers(client: Client) -> None:
    await client.service_client.check_health()


async def worker_polls(client: Client, task_queue: str) -> None:
    """Temporal lists the pollers of the last few minutes; the workflow task queue's say
    a worker runs (the server forgets a poller about five minutes after its last poll)."""
    answer = await client.workflow_service.describe_task_queue(
        DescribeTaskQueueRequest(
            namespace=client.namespace,
            task_queue=TaskQueue(name=task_queue, kind=TaskQueueKind.TASK_QUEUE_KIND_NORMAL),
            task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        )
    )
    if not answer.pollers:
        raise NoWorker(f"no worker polls task queue {task_queue!r}")


async def checked(checks: dict[str, Callable[[], Awaitable[None]]]) -> dict[str, str]:
    """Each check's answer (`ok`, or `unavailable: <kind>`), run together, each within
    the timeout. The detail (hosts, users) goes to the log, not to the answer."""

    async def one(name: str, check: Callable[[], Awaitable[None]]) -> str:
        try:
            await asyncio.wait_for(check(), CHECK_TIMEOUT_SECONDS)
            return READY
        except NoWorker:
            return "unavailable: no worker polling"
        except Exception as error:
            logger.warning("readiness check %s failed: %r", name, error)
            return f"unavailable: {type(error).__name__}"

    names = list(checks)
    answers = await asyncio.gather(*(one(name, checks[name]) for name in names))
    return dict(zip(names, answers, strict=True))
