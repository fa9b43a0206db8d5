"""Everything the API, the worker and `ramp dev` must agree on about Temporal."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.common import SearchAttributeKey
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory
from temporalio.runtime import Runtime

from ramp.config import Settings
from ramp.errors import DomainError, refusal
from ramp.observability.tracing import client_interceptors

TASK_QUEUE = "ramp"

# Custom search attributes: operators filter intents by these in the Temporal UI.
INTENT_STATUS = SearchAttributeKey.for_keyword("RampIntentStatus")
PROJECT_ID = SearchAttributeKey.for_keyword("RampProjectId")
CUSTOMER_ID = SearchAttributeKey.for_keyword("RampCustomerId")
PROVIDER_CODE = SearchAttributeKey.for_keyword("RampProviderCode")
CURRENT_STEP = SearchAttributeKey.for_keyword("RampCurrentStep")
# Set to UNMATCHED_DEPOSIT when money arrived that the intent cannot take (refund it).
MONEY_ISSUE = SearchAttributeKey.for_keyword("RampMoneyIssue")

SEARCH_ATTRIBUTES: tuple[SearchAttributeKey[str], ...] = (
    INTENT_STATUS,
    PROJECT_ID,
    CUSTOMER_ID,
    PROVIDER_CODE,
    CURRENT_STEP,
    MONEY_ISSUE,
)


async def connect(
    settings: Settings, *, lazy: bool = False, runtime: Runtime | None = None
) -> Client:
    """The service's client: pydantic payloads; the request id (and, when tracing is on,
    the trace) carried in headers (ramp/observability); `runtime`: the worker's, whose
    Prometheus endpoint serves the SDK's metrics."""
    return await Client.connect(
        settings.temporal_address,
        namespace=settings.temporal_namespace,
        data_converter=pydantic_data_converter,
        interceptors=client_interceptors(),
        lazy=lazy,
        runtime=runtime,
    )


def application_error(error: DomainError) -> ApplicationError:
    """A domain refusal as activities and workflows raise it: non-retryable, with the
    code as its type, so the update that runs into it fails with the same code."""
    # BENIGN: an expected refusal, so the worker does not log it with a traceback.
    return ApplicationError(
        error.message,
        error.details,
        type=error.code,
        non_retryable=True,
        category=ApplicationErrorCategory.BENIGN,
    )


def domain_error(error: BaseException | None) -> DomainError | None:
    """The domain refusal an update failed with (its cause), if its code is catalogued."""
    if not isinstance(error, ApplicationError) or error.type is None:
        return None
    details = error.details[0] if error.details and isinstance(error.details[0], dict) else {}
    return refusal(error.type, error.message, details)


def providers_queue(task_queue: str) -> str:
    """The task queue of the calls to providers (regular activities), beside the
    service's own: a deployment can run and rate-limit it on workers of its own."""
    return f"{task_queue}-providers"
