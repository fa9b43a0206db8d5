"""The service's Prometheus series (prometheus-client; names start with `ramp_`).

Defined once here and updated where the thing happens: the API's middleware, the intent
services and activities, the provider activities, the webhook dispatcher. Each process
serves its own (exposition.py). docs/operations.md says what each means and what to do
when it moves.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

# Latency buckets (seconds) for calls that go over a network.
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

HTTP_REQUESTS = Counter(
    "ramp_http_requests",
    "HTTP requests the API answered, by route template, method and status.",
    ["route", "method", "status"],
)
HTTP_REQUEST_DURATION = Histogram(
    "ramp_http_request_duration_seconds",
    "Time from a request's arrival to the end of its answer, by route template and method.",
    ["route", "method"],
    buckets=_LATENCY_BUCKETS,
)
REFUSALS = Counter(
    "ramp_throttled_requests",
    "Requests refused with 429, by error code (RATE_LIMITED, AUTH_THROTTLED, ...).",
    ["code"],
)
INTENTS_CREATED = Counter(
    "ramp_intents_created",
    "Intents created, by provider (as selected, or none yet).",
    ["provider"],
)
INTENTS_ENDED = Counter(
    "ramp_intents_ended",
    "Intents that reached a final status, by status and provider.",
    ["status", "provider"],
)
PROVIDER_CALLS = Counter(
    "ramp_provider_calls",
    "Calls to a provider's API, by provider, operation and outcome (ok, refused, failed).",
    ["provider", "operation", "outcome"],
)
PROVIDER_CALL_DURATION = Histogram(
    "ramp_provider_call_duration_seconds",
    "Latency of provider API calls, by provider and operation.",
    ["provider", "operation"],
    buckets=_LATENCY_BUCKETS,
)
WEBHOOK_ATTEMPTS = Counter(
    "ramp_webhook_attempts",
    "Webhook delivery attempts, by what came of the delivery "
    "(succeeded, retrying, exhausted, gone, lost).",
    ["outcome"],
)
WEBHOOK_ATTEMPT_DURATION = Histogram(
    "ramp_webhook_attempt_duration_seconds",
    "Latency of webhook POSTs to customers' endpoints.",
    buckets=_LATENCY_BUCKETS,
)
WEBHOOK_OUTBOX_DUE = Gauge(
    "ramp_webhook_outbox_due",
    "Webhook deliveries due now and not yet attempted (sampled by worker and dispatcher).",
    multiprocess_mode="max",
)
WEBHOOK_OUTBOX_OLDEST_DUE_AGE = Gauge(
    "ramp_webhook_outbox_oldest_due_age_seconds",
    "How long the oldest due webhook delivery has been waiting (0 when none is due).",
    multiprocess_mode="max",
)
PROVIDER_EVENT_RELAY_BACKLOG = Gauge(
    "ramp_provider_event_relay_backlog",
    "Provider webhook events stored and not yet relayed to their intent's workflow.",
    multiprocess_mode="max",
)
PROVIDER_ACCOUNTS = Gauge(
    "ramp_provider_accounts",
    "Projects' provider accounts by provider and health (HEALTHY, UNHEALTHY: the provider "
    "refused the credentials, DISABLED: by the owner); only HEALTHY ones are routed to.",
    ["provider", "status"],
    multiprocess_mode="max",
)
