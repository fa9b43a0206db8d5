"""Service settings, read from the environment (and a `.env` file when present).

One `Settings` object is built at process start and passed down explicitly; nothing
reads the environment after that.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from ipaddress import IPv4Network, IPv6Network, ip_network
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from ramp.request_rates import Rate, parse_rate

# Onboarding submissions are purged this many days after their intent ended
# (docs/decisions.md, "Data at rest").
DEFAULT_WEBHOOK_RETENTION_DAYS = 30.0
DEFAULT_KYC_RETENTION_DAYS = 90
# Every event the service emits is kept this long for `GET /v1/events` (issue 29).
DEFAULT_EVENT_RETENTION_DAYS = 30.0
DEFAULT_AUDIT_RETENTION_DAYS = 365.0


class Environment(StrEnum):
    SANDBOX = "sandbox"
    PRODUCTION = "production"


class WebhookDispatch(StrEnum):
    """Where webhook deliveries are made (docs/decisions.md, "Issue 16")."""

    # By a dispatcher inside each worker process: nothing else to run.
    WORKER = "worker"
    # By `ramp dispatcher` processes only: the worker stores the deliveries and leaves
    # them to those, which keeps the sending off the worker's one core.
    SEPARATE = "separate"


@dataclass(frozen=True)
class RateLimits:
    """The configured rates; None where a limit is `off`."""

    project: Rate | None
    public: Rate | None
    auth_failures_per_client_address: Rate | None
    auth_failures_per_address: Rate | None


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True)

    ramp_env: Environment = Field(default=Environment.SANDBOX, alias="RAMP_ENV")
    # Where `ramp dev` keeps its SQLite files and generated keys.
    data_dir: Path = Field(default=Path(".ramp"), alias="RAMP_DATA_DIR")
    # Empty means SQLite inside the data dir.
    database_url: str = Field(default="", alias="DATABASE_URL")
    temporal_address: str = Field(default="127.0.0.1:7233", alias="TEMPORAL_ADDRESS")
    temporal_namespace: str = Field(default="default", alias="TEMPORAL_NAMESPACE")
    # The Temporal web UI the dashboard links an intent's workflow to (none if empty).
    temporal_ui_url: str = Field(default="", alias="RAMP_TEMPORAL_UI_URL")
    # The task queue of the service's workflows and activities (the API starts them there,
    # the worker polls it). One per test module keeps modules from touching each other.
    task_queue: str = Field(default="ramp", min_length=1, alias="RAMP_TASK_QUEUE")
    # Public base address of this deployment, without the /v1 prefix. It is the JWT
    # issuer and the domain/URI a wallet sign-in message must name.
    public_url: str = Field(default="http://127.0.0.1:8000", alias="RAMP_PUBLIC_URL")
    # Ed25519 private key (PEM) that signs customer and wallet tokens.
    signing_key: SecretStr = Field(default=SecretStr(""), alias="RAMP_SIGNING_KEY")
    # Comma-separated Fernet keys; the first encrypts, all decrypt (rotation).
    encryption_keys: SecretStr = Field(default=SecretStr(""), alias="RAMP_ENCRYPTION_KEYS")
    customer_token_ttl_seconds: int = Field(default=3600, alias="RAMP_CUSTOMER_TOKEN_TTL")
    wallet_nonce_ttl_seconds: int = Field(default=600, alias="RAMP_WALLET_NONCE_TTL")
    # How old a wallet message's Issued At may be when it reaches us.
    wallet_message_max_age_seconds: int = Field(default=600, alias="RAMP_WALLET_MESSAGE_MAX_AGE")
    wallet_chain_id: int = Field(default=100, alias="RAMP_WALLET_CHAIN_ID")
    # The domain and URI a sign-in message must name; empty means those of public_url.
    wallet_domain: str = Field(default="", alias="RAMP_WALLET_DOMAIN")
    wallet_uri: str = Field(default="", alias="RAMP_WALLET_URI")
    max_body_bytes: int = Field(default=64 * 1024, alias="RAMP_MAX_BODY_BYTES")
    # An intent whose money has not started moving by then expires.
    intent_lifetime_seconds: int = Field(default=24 * 3600, ge=60, alias="RAMP_INTENT_LIFETIME")
    # The provider poll (the fallback for a lost provider webhook, docs/providers.md):
    # first this long after the intent last changed, then doubling up to the maximum.
    # Read by the worker when it opens an intent: an intent keeps the schedule it
    # opened with.
    provider_poll_first_seconds: float = Field(
        default=180.0, gt=0, alias="RAMP_PROVIDER_POLL_FIRST"
    )
    provider_poll_max_seconds: float = Field(default=3600.0, gt=0, alias="RAMP_PROVIDER_POLL_MAX")
    # Lifetime of the token in `frontendUrl`; every read of the intent issues a fresh one.
    onboarding_token_ttl_seconds: int = Field(default=3600, alias="RAMP_ONBOARDING_TOKEN_TTL")
    # Webhook deliveries: seconds between attempts (comma-separated; the first attempt
    # goes at once) and each POST's timeout.
    webhook_retry_delays: str = Field(
        default="60,300,1800,7200,86400", alias="RAMP_WEBHOOK_RETRY_DELAYS"
    )
    webhook_timeout_seconds: float = Field(default=30.0, gt=0, alias="RAMP_WEBHOOK_TIMEOUT")
    webhook_dispatch: WebhookDispatch = Field(
        default=WebhookDispatch.WORKER, alias="RAMP_WEBHOOK_DISPATCH"
    )
    # How often a `ramp dispatcher` looks for deliveries due: retries coming due, and
    # what was stored while its LISTEN connection was down (the commits that store
    # deliveries wake it at once). The worker's dispatcher polls every 0.5 s.
    webhook_poll_ms: float = Field(default=500.0, gt=0, le=60000, alias="RAMP_WEBHOOK_POLL_MS")
    # Ended deliveries (with their attempts) and their events are kept this long.
    webhook_retention_days: float = Field(
        default=DEFAULT_WEBHOOK_RETENTION_DAYS, gt=0, alias="RAMP_WEBHOOK_RETENTION_DAYS"
    )
    # Events (`GET /v1/events`) are kept this long, and as long as a delivery of theirs.
    event_retention_days: float = Field(
        default=DEFAULT_EVENT_RETENTION_DAYS, gt=0, alias="RAMP_EVENT_RETENTION_DAYS"
    )
    # Throttling (docs/decisions.md, "Limits"). Rates are COUNT/SECONDS, or `off`.
    # Empty: counters in this process's memory; a redis:// URL: shared by every process.
    rate_limit_redis_url: SecretStr = Field(
        default=SecretStr(""), alias="RAMP_RATE_LIMIT_REDIS_URL"
    )
    rate_limit_key_prefix: str = Field(default="ramp:ratelimit:", alias="RAMP_RATE_LIMIT_PREFIX")
    # Authenticated requests per project (Basic and customer tokens together).
    project_rate_limit: str = Field(default="6000/60", alias="RAMP_RATE_LIMIT_PROJECT")
    # Requests per source address to each unauthenticated endpoint (wallet sign-in,
    # the onboarding page).
    public_rate_limit: str = Field(default="60/60", alias="RAMP_RATE_LIMIT_PUBLIC")
    # Failed client-credential checks per client id from one source address, and per
    # source address; once over, that pair (or that address) is refused until the window
    # closes, the right secret too. Other addresses are not affected. The former name
    # RAMP_AUTH_FAILURES_PER_CLIENT (which counted a client id from every address, so
    # that anyone could lock a project out) is still read, with today's meaning.
    auth_failures_per_client_address: str = Field(
        default="10/300",
        alias="RAMP_AUTH_FAILURES_PER_CLIENT_ADDRESS",
        validation_alias=AliasChoices(
            "RAMP_AUTH_FAILURES_PER_CLIENT_ADDRESS", "RAMP_AUTH_FAILURES_PER_CLIENT"
        ),
    )
    auth_failures_per_address: str = Field(default="50/300", alias="RAMP_AUTH_FAILURES_PER_ADDRESS")
    # Proxies whose X-Forwarded-For (and X-Forwarded-Proto) are believed: addresses or
    # networks, comma-separated. Empty: the connection's peer is the client.
    trusted_proxies: str = Field(default="", alias="RAMP_TRUSTED_PROXIES")

    # Networks outside the public internet that provider API calls may reach besides
    # public addresses (comma-separated, `10.0.0.0/8, ::1`): an operator's staging proxy,
    # a local simulator. Empty: public addresses only (docs/decisions.md, issue 23).
    provider_networks: str = Field(default="", alias="RAMP_PROVIDER_NETWORKS")
    kyc_retention_days: float = Field(
        default=DEFAULT_KYC_RETENTION_DAYS, ge=0, alias="RAMP_KYC_RETENTION_DAYS"
    )
    # The dashboard's audit log: entries older than this are purged by housekeeping.
    audit_retention_days: float = Field(
        default=DEFAULT_AUDIT_RETENTION_DAYS, gt=0, alias="RAMP_AUDIT_RETENTION_DAYS"
    )

    # Operations (docs/operations.md). Log lines: `text` (readable) or `json` (one
    # object a line, with the request id, project and intent where known).
    log_format: Literal["text", "json"] = Field(default="text", alias="RAMP_LOG_FORMAT")
    # Prometheus metrics of this process at http://HOST:PORT/metrics; 0: not served.
    metrics_port: int = Field(default=0, ge=0, le=65535, alias="RAMP_METRICS_PORT")
    metrics_host: str = Field(default="127.0.0.1", alias="RAMP_METRICS_HOST")
    # Traces to this OTLP/HTTP collector (http://collector:4318); empty: no tracing.
    otlp_endpoint: str = Field(
        default="",
        alias="RAMP_OTLP_ENDPOINT",
        validation_alias=AliasChoices("RAMP_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"),
    )

    @field_validator("public_url")
    @classmethod
    def _strip_slash(cls, value: str) -> str:
        return value.rstrip("/")

    @field_validator("webhook_retry_delays")
    @classmethod
    def _delays(cls, value: str) -> str:
        delays = [part.strip() for part in value.split(",") if part.strip()]
        if not all(_non_negative_number(part) for part in delays):
            raise ValueError("RAMP_WEBHOOK_RETRY_DELAYS takes seconds, comma-separated")
        return ",".join(delays)

    @field_validator(
        "project_rate_limit",
        "public_rate_limit",
        "auth_failures_per_client_address",
        "auth_failures_per_address",
    )
    @classmethod
    def _rate(cls, value: str) -> str:
        parse_rate(value)
        return value.strip()

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies(cls, value: str) -> str:
        return ",".join(str(network) for network in _networks(value))

    @field_validator("provider_networks")
    @classmethod
    def _provider_networks(cls, value: str) -> str:
        try:
            for part in value.split(","):
                if part.strip():
                    ipaddress.ip_network(part.strip(), strict=False)
        except ValueError:
            raise ValueError(
                "RAMP_PROVIDER_NETWORKS takes networks, comma-separated (10.0.0.0/8, ::1)"
            ) from None
        return value.strip()

    @model_validator(mode="after")
    def _dispatch_needs_postgres(self) -> Settings:
        # SQLite has one write lock, which a second writing process waits for behind
        # the worker's, seconds at a time under load: its deliveries stay in the worker.
        if self.webhook_dispatch is WebhookDispatch.SEPARATE and not self.on_postgresql:
            raise ValueError(
                "RAMP_WEBHOOK_DISPATCH=separate needs PostgreSQL (DATABASE_URL=postgresql://...);"
                " on SQLite the worker sends the webhooks (RAMP_WEBHOOK_DISPATCH=worker)"
            )
        return self

    @cached_property
    def rate_limits(self) -> RateLimits:
        return RateLimits(
            project=parse_rate(self.project_rate_limit),
            public=parse_rate(self.public_rate_limit),
            auth_failures_per_client_address=parse_rate(self.auth_failures_per_client_address),
            auth_failures_per_address=parse_rate(self.auth_failures_per_address),
        )

    @property
    def trusted_proxy_networks(self) -> list[str]:
        """RAMP_TRUSTED_PROXIES as networks (an address is its /32 or /128)."""
        return [part for part in self.trusted_proxies.split(",") if part]

    @property
    def webhook_retry_delays_seconds(self) -> tuple[float, ...]:
        return tuple(float(part) for part in self.webhook_retry_delays.split(",") if part)

    @property
    def expected_wallet_domain(self) -> str:
        return self.wallet_domain or urlsplit(self.public_url).netloc

    @property
    def expected_wallet_uri(self) -> str:
        return self.wallet_uri or self.public_url

    @cached_property
    def sqlalchemy_url(self) -> str:
        """The async driver URL for the API and the worker."""
        return async_database_url(self.database_url or f"sqlite:///{self.data_dir / 'ramp.db'}")

    @property
    def on_postgresql(self) -> bool:
        """Whether the service's data is in PostgreSQL (else SQLite)."""
        return self.sqlalchemy_url.startswith("postgresql")

    @cached_property
    def migration_url(self) -> str:
        """The sync driver URL for Alembic."""
        return sync_database_url(self.database_url or f"sqlite:///{self.data_dir / 'ramp.db'}")


def _networks(text: str) -> list[IPv4Network | IPv6Network]:
    networks = []
    for part in (part.strip() for part in text.split(",")):
        if not part:
            continue
        try:
            networks.append(ip_network(part))
        except ValueError:
            raise ValueError(
                f"RAMP_TRUSTED_PROXIES: {part!r} is not an IP address or network"
                " (write addresses or CIDRs, comma-separated: 10.0.0.5,192.168.0.0/24)"
            ) from None
    return networks


def _non_negative_number(text: str) -> bool:
    try:
        return float(text) >= 0
    except ValueError:
        return False


def _scheme_swap(url: str, sqlite: str, postgres: str) -> str:
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"DATABASE_URL is not a URL: {url!r}")
    base = scheme.split("+", 1)[0]
    if base == "sqlite":
        return f"{sqlite}://{rest}"
    if base in ("postgres", "postgresql"):
        return f"{postgres}://{rest}"
    raise ValueError(f"unsupported database {base!r}: use sqlite or postgresql")


def async_database_url(url: str) -> str:
    return _scheme_swap(url, "sqlite+aiosqlite", "postgresql+psycopg")


def sync_database_url(url: str) -> str:
    return _scheme_swap(url, "sqlite", "postgresql+psycopg")


def libpq_database_url(url: str) -> str:
    """For a plain psycopg connection (no SQLAlchemy driver name in the scheme)."""
    return _scheme_swap(url, "sqlite", "postgresql")
