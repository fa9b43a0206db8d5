"""Everything the API, the worker and `ramp dev` must agree on about Temporal."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.common import SearchAttributeKey
from temporalio.contrib.pydantic import pydantic_data_converter

from ramp.config import Settings

TASK_QUEUE = "ramp"

# Custom search attributes: operators filter intents by these in the Temporal UI.
INTENT_STATUS = SearchAttributeKey.for_keyword("RampIntentStatus")
PROJECT_ID = SearchAttributeKey.for_keyword("RampProjectId")
CUSTOMER_ID = SearchAttributeKey.for_keyword("RampCustomerId")
PROVIDER_CODE = SearchAttributeKey.for_keyword("RampProviderCode")
CURRENT_STEP = SearchAttributeKey.for_keyword("RampCurrentStep")

SEARCH_ATTRIBUTES: tuple[SearchAttributeKey[str], ...] = (
    INTENT_STATUS,
    PROJECT_ID,
    CUSTOMER_ID,
    PROVIDER_CODE,
    CURRENT_STEP,
)


async def connect(settings: Settings, *, lazy: bool = False) -> Client:
    return await Client.connect(
        settings.temporal_address,
        namespace=settings.temporal_namespace,
        data_converter=pydantic_data_converter,
        lazy=lazy,
    )
