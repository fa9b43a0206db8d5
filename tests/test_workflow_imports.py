"""Workflow safety: what the workflow modules import, and the activities they name.

The worker sandboxes each workflow run: its module is re-imported per run, except the
modules passed through (worker.py). Workflow modules must import only those, and no
activity code (database, HTTP client): they reach activities through definitions
(ramp/*/activities.py, ramp/housekeeping.py) registered by name.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from temporalio import activity

from activities.housekeeping import HousekeepingActivities
from activities.intents import IntentActivities
from activities.onboarding import OnboardingActivities
from activities.providers import ProviderActivities
from activities.webhooks import WebhookActivities
from ramp import housekeeping
from ramp.intents import activities as intent_activities
from ramp.intents import provider_activities
from ramp.onboarding import activities as onboarding_activities
from ramp.webhooks import activities as webhook_activities
from worker import WORKFLOW_PASSTHROUGH_MODULES, workflow_runner

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW_FILES = sorted((ROOT / "workflows").glob("*.py"))
# Activity code and what only activities need: never loaded by importing a workflow.
ACTIVITY_ONLY = ("activities", "sqlalchemy", "sqlmodel", "httpx", "ramp.db", "api")


def _parse(file: Path) -> ast.Module:
    # In a thread of its own: CPython 3.11's parser checks a per-thread recursion
    # counter that a RecursionError earlier in the session's thread (the deep-JSON
    # tests provoke and refuse them) can leave off, failing with "AST constructor
    # recursion depth mismatch".
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(ast.parse, file.read_text()).result()


def _imported(file: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(_parse(file)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


@pytest.mark.parametrize("file", WORKFLOW_FILES, ids=[f.stem for f in WORKFLOW_FILES])
def test_workflow_modules_import_only_passed_through_modules(file: Path) -> None:
    restrictions = workflow_runner().restrictions
    # Other workflow modules are the workflow's own code: sandboxed with it, checked
    # by the sandbox like it (workflows/provider_flow.py, the provider path).
    unsandboxed = [
        name
        for name in _imported(file)
        if name != "__future__"
        and name != "workflows"
        and not name.startswith("workflows.")
        and not any(
            name == allowed or name.startswith(f"{allowed}.")
            for allowed in restrictions.passthrough_modules
        )
    ]
    assert unsandboxed == [], f"{file.name} imports modules the sandbox would re-import"
    assert WORKFLOW_PASSTHROUGH_MODULES == ("ramp",)


def test_workflow_modules_keep_no_mutable_state_at_module_level() -> None:
    """Were a workflow module ever passed through (docs/decisions.md, issue 30: measured
    and declined), it would be shared by every run in the process: a list, dict or set
    at its top level could carry one run's state into another. None has one."""
    mutable = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)
    found = [
        f"{file.name}:{node.lineno}"
        for file in WORKFLOW_FILES
        for node in _parse(file).body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        and isinstance(node.value, mutable)
        and not any(
            isinstance(target, ast.Name) and target.id == "__all__"
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        )
    ]
    assert found == []


def test_importing_the_workflows_loads_no_activity_code() -> None:
    code = (
        "import sys, workflows.intents, workflows.webhooks, workflows.housekeeping\n"
        "print('\\n'.join(sorted(sys.modules)))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert "workflows.intents" in loaded
    heavy = [m for m in loaded if any(m == p or m.startswith(f"{p}.") for p in ACTIVITY_ONLY)]
    assert heavy == []


IMPLEMENTATIONS: dict[str, Callable[..., Any]] = {
    "select_provider": IntentActivities.select_provider,
    "select_and_check_requirements": IntentActivities.select_and_check_requirements,
    "check_requirements": IntentActivities.check_requirements,
    "create_transaction": IntentActivities.create_transaction,
    "cancel_transaction": IntentActivities.cancel_transaction,
    "record_intent": IntentActivities.record_intent,
    "verify_submission": OnboardingActivities.verify_submission,
    "attempt_delivery": WebhookActivities.attempt_delivery,
    "purge_webhook_log": WebhookActivities.purge_webhook_log,
    "purge_expired_nonces": HousekeepingActivities.purge_expired_nonces,
    "purge_ended_submissions": HousekeepingActivities.purge_ended_submissions,
    "provider_compliance": ProviderActivities.provider_compliance,
    "provider_create_transfer": ProviderActivities.provider_create_transfer,
    "provider_get_transfer": ProviderActivities.provider_get_transfer,
    "provider_cancel_transfer": ProviderActivities.provider_cancel_transfer,
}
DEFINITIONS: list[Callable[..., Any]] = [
    intent_activities.select_provider,
    intent_activities.check_requirements,
    intent_activities.select_and_check_requirements,
    intent_activities.create_transaction,
    intent_activities.cancel_transaction,
    intent_activities.record_intent,
    onboarding_activities.verify_submission,
    webhook_activities.attempt_delivery,
    housekeeping.purge_expired_nonces,
    housekeeping.purge_ended_submissions,
    provider_activities.provider_compliance,
    provider_activities.provider_create_transfer,
    provider_activities.provider_get_transfer,
    provider_activities.provider_cancel_transfer,
    housekeeping.purge_webhook_log,
]


@pytest.mark.parametrize("definition", DEFINITIONS, ids=lambda d: d.__name__)
def test_each_definition_matches_the_registered_implementation(
    definition: Callable[..., Any],
) -> None:
    """Same name (recorded in every history) and the same input and output types."""
    declared = activity._Definition.must_from_callable(definition)
    assert declared.name is not None
    implemented = activity._Definition.must_from_callable(IMPLEMENTATIONS[declared.name])
    assert implemented.name == declared.name
    assert (implemented.arg_types, implemented.ret_type) == (
        declared.arg_types,
        declared.ret_type,
    )


def test_every_registered_activity_has_a_definition() -> None:
    assert {activity._Definition.must_from_callable(d).name for d in DEFINITIONS} == set(
        IMPLEMENTATIONS
    )
