"""Service settings, read from the environment (and a `.env` file when present).

One `Settings` object is built at process start and passed down explicitly; nothing
reads the environment after that.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cached_property
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# Onboarding submissions are purged this many days after their intent ended
# (docs/decisions.md, "Data at rest").
DEFAULT_KYC_RETENTION_DAYS = 90


class Environment(StrEnum):
    SANDBOX = "sandbox"
    PRODUCTION = "production"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True)

    ramp_env: Environment = Field(default=Environment.SANDBOX, alias="RAMP_ENV")
    # Where `ramp dev` keeps its SQLite files and generated keys.
    data_dir: Path = Field(default=Path(".ramp"), alias="RAMP_DATA_DIR")
    # Empty means SQLite inside the data dir.
    database_url: str = Field(default="", alias="DATABASE_URL")
    temporal_address: str = Field(default="127.0.0.1:7233", alias="TEMPORAL_ADDRESS")
    temporal_namespace: str = Field(default="default", alias="TEMPORAL_NAMESPACE")
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
    # Lifetime of the token in `frontendUrl`; every read of the intent issues a fresh one.
    onboarding_token_ttl_seconds: int = Field(default=3600, alias="RAMP_ONBOARDING_TOKEN_TTL")
    # Webhook deliveries: seconds between attempts (comma-separated; the first attempt
    # goes at once) and each POST's timeout.
    webhook_retry_delays: str = Field(
        default="60,300,1800,7200,86400", alias="RAMP_WEBHOOK_RETRY_DELAYS"
    )
    webhook_timeout_seconds: float = Field(default=30.0, gt=0, alias="RAMP_WEBHOOK_TIMEOUT")
    kyc_retention_days: float = Field(
        default=DEFAULT_KYC_RETENTION_DAYS, ge=0, alias="RAMP_KYC_RETENTION_DAYS"
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

    @cached_property
    def migration_url(self) -> str:
        """The sync driver URL for Alembic."""
        return sync_database_url(self.database_url or f"sqlite:///{self.data_dir / 'ramp.db'}")


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
