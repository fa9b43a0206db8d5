"""The sandbox's stand-ins for providers and verification (404 in production): report
a provider's progress on a transaction, or a compliance step's outcome. Part of the one
route table of api/routes.py, kept here so each module stays readable."""

from __future__ import annotations

from starlette.routing import BaseRoute

from api import schemas
from api.operations import ApiRoute, Operation, path_parameter
from api.sandbox import record_step_outcome, report_transaction_event

SANDBOX_ROUTES: list[BaseRoute] = [
    ApiRoute(
        "POST",
        "/sandbox/transactions/{id}/events",
        report_transaction_event,
        Operation(
            "reportSandboxProviderEvent",
            "Sandbox only: report provider progress on a transaction (202; applied asynchronously)",
            auth="basic",
            status=202,
            request=schemas.SandboxProviderEvent,
            response=schemas.ProviderEventAccepted,
            parameters=(path_parameter("id", "Transaction id"),),
            errors=(400, 401, 404, 409, 503),
        ),
    ),
    ApiRoute(
        "POST",
        "/sandbox/intents/{intentId}/compliance-steps/{stepCode}",
        record_step_outcome,
        Operation(
            "recordSandboxStepOutcome",
            "Sandbox only: report the outcome of the current compliance step (202; applied "
            "asynchronously)",
            auth="basic",
            status=202,
            request=schemas.SandboxStepOutcome,
            response=schemas.StepOutcomeAccepted,
            parameters=(
                path_parameter("intentId", "Intent id"),
                path_parameter("stepCode", "Requirement code"),
            ),
            errors=(400, 401, 404, 409, 503),
        ),
    ),
]
