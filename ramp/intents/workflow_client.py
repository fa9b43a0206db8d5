"""The intent's workflow as the application services call it: by its registered names.

The shared package does not import `workflows` (the worker's code imports it); these
are the names under which `IntentWorkflow` (workflows/intents.py) registers its run,
updates and signals, and a test keeps them equal. A failed update comes back as the
domain error its code names (`ramp.errors`); a workflow that has ended as
`WorkflowEnded`, so that no caller reads the server's wording.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta
from typing import Any

from temporalio.client import (
    Client,
    WithStartWorkflowOperation,
    WorkflowHandle,
    WorkflowUpdateFailedError,
)
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.service import RPCError, RPCStatusCode

from ramp.errors import IntentError, Unavailable
from ramp.intents.clock import ADVANCE_CLOCK, ClockAdvance, ClockAdvanced
from ramp.intents.lifecycle import workflow_id
from ramp.intents.models import (
    IntentOutcome,
    IntentRequest,
    IntentState,
    ProviderEvent,
    StepSubmission,
    StepUpdate,
)
from ramp.temporal import TASK_QUEUE, domain_error

WORKFLOW_TYPE = "IntentWorkflow"
OPEN = "open"
EXECUTE = "execute"
CANCEL = "cancel"
SUBMIT_STEP = "submit_step"
UPDATE_STEP = "update_step"
REPORT_PROVIDER_EVENT = "report_provider_event"
# The `open` update's id is this prefix and the id of the `POST /intent` call sending it:
# one update per call. A shared id made a refused open final: Temporal answers an
# update-with-start whose update id already completed on the closed run with that
# outcome instead of starting a new run (server 1.28 on), so a retry with the same
# Idempotency-Key after a TEMPORARILY_UNAVAILABLE (the database or the worker down
# through the lookups' retries) got the same refusal forever. Calls that meet on one
# running workflow are told apart by the workflow (`opened_by`).
OPEN_UPDATE_ID = "open"


class WorkflowEnded(Exception):
    """The intent's workflow has ended (or is gone): it takes no update or signal, and
    the projection holds its final state."""


class IntentWorkflowClient:
    def __init__(self, client: Client, task_queue: str = TASK_QUEUE) -> None:
        self._client = client
        self._task_queue = task_queue

    async def open(
        self, request: IntentRequest, request_id: str, *, reopen: bool, rpc_timeout: timedelta
    ) -> IntentState:
        """Update-with-start of the `open` update. `reopen` False: an ended workflow of
        this id is never started again (its intent is final)."""
        operation: WithStartWorkflowOperation[Any, IntentOutcome] = WithStartWorkflowOperation(
            WORKFLOW_TYPE,
            request,
            id=workflow_id(request.intent_id),
            task_queue=self._task_queue,
            result_type=IntentOutcome,
            # A retry with the same Idempotency-Key joins the running workflow.
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
            id_reuse_policy=(
                WorkflowIDReusePolicy.ALLOW_DUPLICATE
                if reopen
                else WorkflowIDReusePolicy.REJECT_DUPLICATE
            ),
        )
        try:
            opened: IntentState = await self._client.execute_update_with_start_workflow(
                OPEN,
                request_id,
                start_workflow_operation=operation,
                id=f"{OPEN_UPDATE_ID}-{request_id}",
                result_type=IntentState,
                rpc_timeout=rpc_timeout,
            )
        except WorkflowUpdateFailedError as error:
            _observe_start(operation)
            raise _refusal(error) from None
        except BaseException:
            _observe_start(operation)
            raise
        return opened

    async def execute(self, intent_id: str, update_id: str, wait: timedelta) -> IntentState:
        """The `execute` update, answered within `wait` or `Unavailable` (503)."""
        return await self._bounded_update(EXECUTE, intent_id, update_id, wait)

    async def cancel(self, intent_id: str, update_id: str, wait: timedelta) -> IntentState:
        """The customer's cancellation (the `cancel` update, IntentWorkflow), answered
        within `wait` or `Unavailable` (503)."""
        return await self._bounded_update(CANCEL, intent_id, update_id, wait)

    async def _bounded_update(
        self, update: str, intent_id: str, update_id: str, wait: timedelta
    ) -> IntentState:
        """An update whose handler waits on a provider (ramp/intents/waits.py). An RPC
        longer than the server's long poll (20 s) is not an error to the SDK: the server
        answers "not yet" and the SDK asks again, with no deadline of its own. So the
        whole wait is bounded here; the RPC's own timeout only lets each poll run."""
        try:
            async with asyncio.timeout(wait.total_seconds()):
                state: IntentState = await self._handle(intent_id).execute_update(
                    update, id=update_id, result_type=IntentState, rpc_timeout=wait
                )
        except TimeoutError:
            raise Unavailable(
                IntentError.TEMPORARILY_UNAVAILABLE,
                f"the intent's workflow did not answer within {wait.total_seconds():.0f} s; "
                "retry the request",
            ) from None
        except WorkflowUpdateFailedError as error:
            raise _refusal(error) from None
        except RPCError as error:
            raise _ended(error) from None
        return state

    async def submit_step(
        self, intent_id: str, submission: StepSubmission, rpc_timeout: timedelta
    ) -> IntentState:
        try:
            state: IntentState = await self._handle(intent_id).execute_update(
                SUBMIT_STEP,
                submission,
                id=f"submit-{submission.submission_id}",
                result_type=IntentState,
                rpc_timeout=rpc_timeout,
            )
        except WorkflowUpdateFailedError as error:
            raise _refusal(error) from None
        except RPCError as error:
            raise _ended(error) from None
        return state

    async def advance_clock(self, intent_id: str, advance: ClockAdvance) -> ClockAdvanced:
        """A sandbox intent's clock moved forward (the `advance_clock` update); each call
        is an advance of its own."""
        try:
            advanced: ClockAdvanced = await self._handle(intent_id).execute_update(
                ADVANCE_CLOCK, advance, id=f"clock-{uuid.uuid4()}", result_type=ClockAdvanced
            )
        except WorkflowUpdateFailedError as error:
            raise _refusal(error) from None
        except RPCError as error:
            raise _ended(error) from None
        return advanced

    async def update_step(self, intent_id: str, update: StepUpdate) -> None:
        try:
            await self._handle(intent_id).signal(UPDATE_STEP, update)
        except RPCError as error:
            raise _ended(error) from None

    async def report_provider_event(self, intent_id: str, event: ProviderEvent) -> None:
        try:
            await self._handle(intent_id).signal(REPORT_PROVIDER_EVENT, event)
        except RPCError as error:
            raise _ended(error) from None

    def _handle(self, intent_id: str) -> WorkflowHandle[Any, Any]:
        return self._client.get_workflow_handle(workflow_id(intent_id))


def _refusal(error: WorkflowUpdateFailedError) -> Exception:
    """The domain error of a failed update; the failure itself when its code is not
    in the catalogue (the API answers 500)."""
    refused = domain_error(error.cause)
    return refused if refused is not None else error


def _ended(error: RPCError) -> Exception:
    # Callers name a workflow whose intent is in the projection: it existed, so NOT_FOUND
    # means it has ended (or its history is gone). Anything else is an outage.
    return WorkflowEnded() if error.status is RPCStatusCode.NOT_FOUND else error


def _observe_start(operation: WithStartWorkflowOperation[Any, IntentOutcome]) -> None:
    """Reads the start's outcome once it is known. When the call fails, the SDK also
    sets the failure on the operation's own future, which nobody awaits: asyncio would
    log it as "Future exception was never retrieved" (the caller already has the error)."""
    started: asyncio.Future[Any] | None = getattr(operation, "_workflow_handle", None)
    if started is None:
        return
    started.add_done_callback(lambda done: done.cancelled() or done.exception())
