"""How the intent workflow calls a provider: the one place that reads a connector's
declaration (`ProviderSelection.call_mode`, from `Connector.call_mode`) and turns it
into activity options.

- `LOCAL` (in-process connectors, the sandbox's mocks): local activities in the intent
  worker, a short budget (a minute, five attempts), and orders placed inline by the
  handler that makes the intent ready, so `POST /intent` answers with the transaction.
- `REMOTE` (network providers, Bridge): regular activities on the providers' task
  queue, retried with backoff until the intent's expiry (or a step's own budget), and
  orders placed by the provider driver, outside every handler and lock.

Whatever the mode, a call ends in its result or in one of three outcomes the workflow
applies the same way for every connector: `Refused` (fail the step or intent with the
provider's reason), `Declined` (this attempt only: the intent stays as it was), `GaveUp`
(still failing when the budget ran out). A `GaveUp` whose last failure was ours, not the
provider's (INTERNAL_FAILURE: the database, a bug), is an `OurFailure`: an order keeps
its provider (workflows/internal_errors.py).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, TimeoutError

from ramp import temporal
from ramp.adapters.contract import CallMode
from ramp.errors import ProviderCallError
from ramp.intents.models import ProviderSelection

PROVIDER_DECLINED = ProviderCallError.PROVIDER_DECLINED.value
PROVIDER_NOT_SUPPORTED = ProviderCallError.PROVIDER_NOT_SUPPORTED.value
PROVIDER_REFUSED = ProviderCallError.PROVIDER_REFUSED.value

_NEVER_RETRIED = (PROVIDER_REFUSED, PROVIDER_NOT_SUPPORTED, PROVIDER_DECLINED)
# The provider's own failures (besides a call without an answer in time); any other
# error type is ours: the activity's INTERNAL_FAILURE, or an exception it did not type.
_PROVIDER_FAILURES = frozenset(
    code.value
    for code in (
        ProviderCallError.PROVIDER_UNAVAILABLE,
        ProviderCallError.PROVIDER_CREDENTIALS_REJECTED,
        ProviderCallError.PROVIDER_OUT_OF_SERVICE,
    )
)
# In process: a local call either answers at once or is broken; a handler waits on it.
LOCAL_START_TO_CLOSE = timedelta(seconds=20)
LOCAL_BUDGET = timedelta(seconds=60)
# Across the network: one attempt's limit; the budget is the caller's (until expiry).
REMOTE_START_TO_CLOSE = timedelta(seconds=30)


class Failure:
    """Why a provider call gave no result. Plain classes (no dataclass): the sandbox
    imports this module for every workflow run, and a dataclass costs a `exec` each."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.reason!r})"


class Refused(Failure):
    """The provider refused: the step or intent fails with the reason."""


class Declined(Failure):
    """The provider declined this attempt only: the intent stays as it was."""


class GaveUp(Failure):
    """Still failing when the budget ran out. `retry_after`: the wait the last attempt
    asked for before the next (the provider's Retry-After, or the backoff), when it
    named one: the budget ended before it, so the caller waits it before asking again."""

    __slots__ = ("retry_after",)

    def __init__(self, reason: str, retry_after: timedelta | None = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


class OurFailure(GaveUp):
    """Still failing when the budget ran out, the last attempt for a reason of ours (the
    database, a bug), not the provider's. A `GaveUp` with the same `reason`, so that the
    calls which do not tell the two apart, and runs from before the patch, act as before."""


def call_mode(selection: ProviderSelection) -> CallMode:
    """The connector's declaration; histories from before it was recorded had a
    network connector exactly when `connector` was set."""
    if selection.call_mode:
        return CallMode(selection.call_mode)
    return CallMode.REMOTE if selection.connector else CallMode.LOCAL


def orders_inline(selection: ProviderSelection) -> bool:
    """Whether the handler that makes the intent ready places its order itself (an
    in-process connector answers within the handler) or leaves it to the driver."""
    return call_mode(selection) is CallMode.LOCAL


def _local_retry() -> RetryPolicy:
    return RetryPolicy(
        initial_interval=timedelta(milliseconds=500),
        maximum_attempts=5,
        non_retryable_error_types=_NEVER_RETRIED,
    )


def _remote_retry() -> RetryPolicy:
    return RetryPolicy(
        initial_interval=timedelta(seconds=1),
        backoff_coefficient=2.0,
        maximum_interval=timedelta(minutes=5),
        maximum_attempts=0,
        non_retryable_error_types=[PROVIDER_REFUSED, PROVIDER_NOT_SUPPORTED],
    )


async def call(
    selection: ProviderSelection,
    activity: Callable[[Any], Any],
    argument: Any,
    *,
    until: datetime | None = None,
    budget: timedelta | None = None,
) -> Any:
    """One provider activity: its result, or a `Failure`. A network call is retried
    until `until` or for `budget`; an in-process one within LOCAL_BUDGET."""
    try:
        if call_mode(selection) is CallMode.LOCAL:
            return await workflow.execute_local_activity(
                activity,
                argument,
                start_to_close_timeout=LOCAL_START_TO_CLOSE,
                schedule_to_close_timeout=LOCAL_BUDGET,
                retry_policy=_local_retry(),
            )
        if until is not None:
            budget = max(until - workflow.now(), timedelta(seconds=1))
        assert budget is not None
        return await workflow.execute_activity(
            activity,
            argument,
            task_queue=temporal.providers_queue(workflow.info().task_queue),
            start_to_close_timeout=REMOTE_START_TO_CLOSE,
            schedule_to_close_timeout=budget,
            retry_policy=_remote_retry(),
        )
    except (ActivityError, ApplicationError) as error:
        cause: BaseException | None = error
        while isinstance(cause, ActivityError):
            cause = cause.cause
        name = selection.provider_name
        if isinstance(cause, ApplicationError) and cause.type in (
            PROVIDER_REFUSED,
            PROVIDER_NOT_SUPPORTED,
        ):
            return Refused(_refusal(name, cause))
        if isinstance(cause, ApplicationError) and cause.type == PROVIDER_DECLINED:
            return Declined(_refusal(name, cause))
        message = str(cause) if cause is not None else str(error)
        if _ours(cause):
            return OurFailure(f"{name} unavailable: {message}", _retry_after(cause))
        return GaveUp(f"{name} unavailable: {message}", _retry_after(cause))


def _ours(cause: BaseException | None) -> bool:
    """Whether a call's last attempt failed for a reason of ours: an error type that is
    not one of the provider's. A budget that ran out carries that attempt's failure as
    its cause; without one (no answer in time) it is the provider's."""
    if isinstance(cause, TimeoutError):
        cause = cause.cause
    return isinstance(cause, ApplicationError) and cause.type not in _PROVIDER_FAILURES


def _retry_after(cause: BaseException | None) -> timedelta | None:
    """The wait the last attempt named before the next (`next_retry_delay`: the
    provider's Retry-After as a floor of the backoff, activities/provider_errors.py).
    None after a budget that ran out during an attempt (a `TimeoutError`): the wait its
    cause names is the attempt before's, already waited."""
    return cause.next_retry_delay if isinstance(cause, ApplicationError) else None


def _refusal(provider_name: str, error: ApplicationError) -> str:
    """The provider's reason in our words, with the fields it names as our pointers
    (into the account's metadata), so a client can say which field to fix."""
    details = error.details[0] if error.details and isinstance(error.details[0], dict) else {}
    fields = details.get("fields") or {}
    named = "; ".join(f"{pointer}: {reason}" for pointer, reason in sorted(fields.items()))
    return f"{provider_name}: {error.message}" + (f" ({named})" if named else "")
