"""The test run's passes: which tests run against which database (`RAMP_TEST_PASS`), and
what each module weighs when `./scripts/test`'s processes claim them (tests/claims.py).

Every test that reaches the database under test runs in each database's pass; the
others run in one pass, in whichever process claims them first, the costliest first,
from the CPU seconds measured per module (tests/cpu_report.py). A plugin of
tests/conftest.py.
"""

from __future__ import annotations

import os

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "database: reaches the database of RAMP_TEST_DATABASE_URL without the database_url "
        "fixture (kept in the PostgreSQL pass)",
    )
    config.addinivalue_line(
        "markers",
        "postgresql_only: about a behaviour of PostgreSQL deployments (deselected on SQLite)",
    )
    config.addinivalue_line(
        "markers", "sqlite_only: about a behaviour of SQLite deployments (deselected on PostgreSQL)"
    )
    config.addinivalue_line(
        "markers",
        "either_database: reaches the database, but is about something else (a Temporal server "
        "or a worker process killed, no worker at all, throttles, pages, documents): runs in "
        "one of the two passes, claimed like the tests that reach no database",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that reaches the database under test runs in each database's pass:
    through the `database_url` fixture (directly or through `migrated`, `client`, ...)
    or marked `database`. The others (scripts, the supervisor, `ramp dev` on its own
    SQLite, pure logic) would only repeat themselves: when ./scripts/test runs both
    passes side by side (`RAMP_TEST_PASS` = sqlite or postgres), each such module runs
    once, in the process of either pass that claims it (tests/claims.py). Tests marked
    `postgresql_only` or `sqlite_only` run only against that database; those marked
    `either_database` reach it but are about something else, and are claimed like the
    database-free ones."""
    other = "sqlite_only" if os.environ.get("RAMP_TEST_DATABASE_URL") else "postgresql_only"
    elsewhere = [item for item in items if item.get_closest_marker(other) is not None]
    if elsewhere:
        config.hook.pytest_deselected(items=elsewhere)
        items[:] = [item for item in items if item.get_closest_marker(other) is None]
    share = os.environ.get("RAMP_TEST_PASS")
    if share is not None and share not in PASSES:
        raise pytest.UsageError(f"RAMP_TEST_PASS must be one of {PASSES}, not {share!r}")
    shard = os.environ.get("RAMP_TEST_SHARD")
    if shard is not None:
        _shard(shard)
    if (share is not None or shard is not None) and not os.environ.get(CLAIMS):
        # Without claims every process would run every database-free test.
        raise pytest.UsageError(
            "RAMP_TEST_PASS and RAMP_TEST_SHARD are ./scripts/test's, with RAMP_TEST_CLAIMS"
        )


def _shard(raw: str) -> None:
    """`RAMP_TEST_SHARD=I/N`: this process is the I-th of its pass's N (a label)."""
    index, _, count = raw.partition("/")
    if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise pytest.UsageError(f"RAMP_TEST_SHARD must be I/N with 1 <= I <= N, not {raw!r}")


def unit_of(module: str) -> str:
    """The name a module is claimed under: its own, or its SHARED group's first."""
    return next((min(group) for group in SHARED if module in group), module)


# Modules that share a process-wide stack (tests/helpers/sandbox.py): claimed together, so
# that one process starts it once.
SHARED = (
    {
        "tests/test_ramp_dev.py",
        "tests/test_ramp_dev_faults.py",
        "tests/test_ramp_dev_privacy.py",
        "tests/test_readme_walk.py",
    },
)


PASSES = ("postgres", "sqlite")
# A directory of one ./scripts/test run: with it, its processes claim modules as they go
# (tests/claims.py) instead of each running a share computed in advance.
CLAIMS = "RAMP_TEST_CLAIMS"

# What a claim weighs (tests/claims.py): each module's CPU seconds in a pass
# (tests/cpu_report.py, user + sys of pytest's process tree, which hardly moves with the
# machine's load, unlike wall time), every module's from one run of
# `RAMP_TEST_CPU_REPORT=all CI=true ./scripts/test` on the 2-core machine (2026-11-26,
# three processes a pass, the machine idle). In that run each process's wall time was 2.7
# to 3.7 times its CPU, whatever its modules: six processes share two cores, so the CPU
# orders the modules by their wall time, but for the waits of WAIT_SECONDS
# (TEST_WAIT_SECONDS a test for the rest). Only the order matters: a stale figure has a
# module claimed a little earlier or later. A module not listed (under 0.3 s) counts
# DEFAULT_TEST_SECONDS per test. A module with tests of both kinds is listed in both
# tables: the part that runs in each pass, and the part either pass may claim.
#
# MODULE_SECONDS: the tests of a module that run in one of the two passes, chosen by the
# claims (they reach no database, or are marked either_database).
MODULE_SECONDS = {
    "tests/test_ramp_dev_faults.py": 25.8,
    "tests/test_ramp_dev.py": 19.2,
    "tests/test_scripts.py": 18.9,
    "tests/test_onboarding_page.py": 12.3,
    "tests/test_bridge_worker_kill.py": 11.5,
    "tests/test_replay.py": 10.4,
    "tests/test_dashboard_browser.py": 9.6,
    "tests/test_cli.py": 8.0,
    "tests/test_intent_temporal_restart.py": 7.3,
    "tests/test_ramp_dev_production.py": 6.9,
    "tests/test_monerium_onboarding_page.py": 6.8,
    "tests/test_intent_durability.py": 6.3,
    "tests/test_onboarding_durability.py": 5.3,
    "tests/test_bridge_polling.py": 4.7,
    "tests/test_throttling_by_address.py": 4.4,
    "tests/test_supervisor.py": 4.1,
    "tests/test_intent_expiry.py": 4.0,
    "tests/test_api_reference.py": 3.3,
    "tests/test_worker_outage.py": 3.1,
    "tests/test_readme_walk.py": 3.0,
    "tests/test_provider_accounts.py": 2.6,
    "tests/test_bridge_onboarding_page.py": 2.5,
    "tests/test_python_client.py": 2.0,
    "tests/test_webhook_sender_process.py": 2.0,
    "tests/test_intent_provider_failures.py": 1.9,
    "tests/test_openapi.py": 1.9,
    "tests/test_webhook_cli.py": 1.8,
    "tests/test_observability.py": 1.6,
    "tests/test_identity.py": 1.5,
    "tests/test_exit_guard.py": 1.4,
    "tests/test_data_at_rest.py": 1.3,
    "tests/test_dashboard_cli.py": 1.2,
    "tests/test_workflow_imports.py": 1.2,
    "tests/test_migrations.py": 1.1,
    "tests/test_network_policy.py": 1.1,
    "tests/test_catalog.py": 0.9,
    "tests/test_intent_workflow_stubbed.py": 0.9,
    "tests/test_throttling.py": 0.9,
    "tests/test_bridge_connector.py": 0.8,
    "tests/test_monerium_connector.py": 0.8,
    "tests/test_onboarding_link_privacy.py": 0.7,
    "tests/test_catalog_api.py": 0.6,
    "tests/test_error_catalogue.py": 0.6,
    "tests/test_webhook_replay.py": 0.6,
    "tests/test_dashboard_pages.py": 0.5,
    "tests/test_docs_and_pages.py": 0.5,
    "tests/test_environments.py": 0.5,
    "tests/test_provider_event_relay.py": 0.5,
    "tests/test_webhook_retention.py": 0.5,
    "tests/test_monerium_replay.py": 0.4,
    "tests/test_ramp_dev_privacy.py": 0.4,
    "tests/test_auth_and_errors.py": 0.3,
    "tests/test_cancel_replay.py": 0.3,
    "tests/test_event_order_replay.py": 0.3,
    "tests/test_lookup_replay.py": 0.3,
}
# WAIT_SECONDS: what a module spends waiting by design (a timeout, a lease, a killed
# process's activities timing out), seconds of wall time beside its CPU, from the
# slowest tests of the runs of 2026-11-26 (night). Only the claims' order reads it
# (tests/claims.py): a module that mostly waits is claimed early, not last, where its
# wait would hold its process after the others end.
WAIT_SECONDS = {
    "tests/test_bridge_worker_kill.py": 40.0,
    "tests/test_worker_outage.py": 40.0,
    "tests/test_bridge_slow_orders.py": 30.0,
    "tests/test_intent_temporal_restart.py": 15.0,
    "tests/test_webhook_dispatch.py": 15.0,
    "tests/test_cancel.py": 10.0,
    "tests/test_onboarding_durability.py": 10.0,
    "tests/test_ramp_dev_production.py": 10.0,
    "tests/test_internal_order_errors.py": 8.0,
    "tests/test_bridge_accounts.py": 8.0,
}
DEFAULT_TEST_SECONDS = 0.05
TEST_WAIT_SECONDS = 0.02
# SHARD_SECONDS: the tests of a module that run in each pass whatever the claims (they reach
# the database, or are pinned to it): their CPU seconds in the SQLite pass and in the
# PostgreSQL pass.
SHARD_SECONDS = {
    "tests/test_webhook_durability.py": (25.2, 24.3),
    "tests/test_schemathesis.py": (16.8, 22.1),
    "tests/test_scale_out.py": (0.0, 35.2),
    "tests/test_intents.py": (11.6, 9.5),
    "tests/test_bridge_production.py": (7.3, 8.3),
    "tests/test_webhooks.py": (7.5, 8.1),
    "tests/test_monerium_production.py": (6.8, 6.7),
    "tests/test_cancel.py": (6.4, 6.5),
    "tests/test_onboarding_api.py": (5.7, 6.1),
    "tests/test_dashboard_admin.py": (4.9, 4.4),
    "tests/test_ramp_dev.py": (0.0, 8.6),
    "tests/test_webhook_dispatcher_process.py": (3.2, 5.1),
    "tests/test_routing.py": (3.5, 4.2),
    "tests/test_webhook_dispatch.py": (2.9, 4.0),
    "tests/test_migrations.py": (3.1, 3.1),
    "tests/test_bridge_accounts.py": (3.2, 2.1),
    "tests/test_provider_event_relay.py": (2.2, 2.2),
    "tests/test_bridge_poll_schedule.py": (1.6, 2.6),
    "tests/test_events_api.py": (1.9, 2.1),
    "tests/test_webhook_dispatcher.py": (1.9, 1.6),
    "tests/test_intent_idempotency.py": (1.9, 1.5),
    "tests/test_dashboard_settings.py": (1.4, 1.9),
    "tests/test_housekeeping.py": (1.5, 1.5),
    "tests/test_idempotency.py": (1.4, 1.2),
    "tests/test_auth_and_errors.py": (1.2, 1.2),
    "tests/test_walletpay.py": (0.9, 1.4),
    "tests/test_dashboard_providers.py": (1.1, 1.1),
    "tests/test_transaction_resource.py": (1.1, 1.1),
    "tests/test_webhook_recovery.py": (0.8, 1.4),
    "tests/test_intent_reference_fields.py": (1.1, 1.0),
    "tests/test_intent_handler_connections.py": (0.9, 1.1),
    "tests/test_one_call_intents.py": (1.1, 0.9),
    "tests/test_hostile_input.py": (0.8, 1.1),
    "tests/test_lists.py": (0.9, 0.8),
    "tests/test_dashboard_intents.py": (0.8, 0.6),
    "tests/test_provider_accounts.py": (0.7, 0.7),
    "tests/test_webhook_migration.py": (1.0, 0.3),
    "tests/test_webhook_retention.py": (0.6, 0.6),
    "tests/test_bridge_quotes_api.py": (0.5, 0.6),
    "tests/test_intent_services.py": (0.5, 0.6),
    "tests/test_application_services.py": (0.1, 0.9),
    "tests/test_data_at_rest.py": (0.5, 0.5),
    "tests/test_money.py": (0.5, 0.5),
    "tests/test_quotes.py": (0.5, 0.5),
    "tests/test_webhook_schedule.py": (0.3, 0.3),
    "tests/test_external_accounts.py": (0.2, 0.3),
    "tests/test_monerium_accounts.py": (0.2, 0.3),
}


def _fixed(item: pytest.Item) -> bool:
    """Runs in its pass whatever the claims: reaches the database, or is pinned to one."""
    return _reaches(item) or _pinned(item)


def _costs(items: list[pytest.Item], column: int) -> dict[str, float]:
    """The cost of each module's tests among `items`, in the pass of SHARD_SECONDS's
    `column` (0 SQLite, 1 PostgreSQL)."""
    counts: dict[str, list[int]] = {}  # module: [fixed tests, free tests]
    for item in items:
        counts.setdefault(_module(item), [0, 0])[0 if _fixed(item) else 1] += 1
    cost: dict[str, float] = {}
    for module, (fixed, free) in counts.items():
        seconds = TEST_WAIT_SECONDS * (fixed + free)
        if fixed:
            listed = SHARD_SECONDS.get(module)
            seconds += listed[column] if listed else DEFAULT_TEST_SECONDS * fixed
        if free:
            seconds += MODULE_SECONDS.get(module, DEFAULT_TEST_SECONDS * free)
        cost[module] = seconds
    return cost


def _module(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def _pinned(item: pytest.Item) -> bool:
    """About one database: runs in that database's pass, whatever the claims."""
    return any(item.get_closest_marker(name) for name in ("sqlite_only", "postgresql_only"))


def _reaches(item: pytest.Item) -> bool:
    if item.get_closest_marker("either_database") is not None:
        return False
    names = getattr(item, "fixturenames", ())
    return "database_url" in names or item.get_closest_marker("database") is not None
