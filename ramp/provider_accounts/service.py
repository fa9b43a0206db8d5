"""Provider accounts: what the `ramp provider-account` commands and the dashboard do.

A production project routes through exactly its provider accounts that are enabled and
healthy. Setting an account validates the credentials against the provider's schema,
checks them with the provider (`verify_credentials`: invalid ones are refused with the
provider's reason and nothing is stored), stores them sealed (encrypted, bound to the
project and provider) and registers our webhook endpoint at the provider where its API
allows it. Credentials are never returned: a view carries a masked hint only.

A project may hold several accounts of one provider (two Bridge accounts for two legal
entities): each has a `name`, unique within the project and provider (DEFAULT_NAME when
none is given: the one account `set` without a name updates, as before several could
be held), and a routing `priority` (lower first among the provider's accounts;
DEFAULT_PRIORITY when none is given). Routing treats each as a candidate
(activities/routing.py).

Activities open an account into a `ProviderContext` (decrypted credentials) with
`provider_context`; nothing else decrypts them.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

import jsonschema
from pydantic import SecretStr
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.adapters.capabilities import GeneratesWebhookSecret
from ramp.adapters.contract import (
    Connector,
    CredentialsRejected,
    NotSupported,
    ProviderContext,
    ProviderCredentials,
    ProviderError,
    ProviderRefused,
    ProviderUnavailable,
)
from ramp.adapters.registry import Connectors
from ramp.config import Environment
from ramp.db.tables import Project, ProviderAccount
from ramp.db.types import utcnow
from ramp.errors import (
    Conflict,
    InvalidInput,
    NotFound,
    ProviderAccountError,
    Unavailable,
)
from ramp.provider_accounts.credentials import (
    masked_hint,
    seal,
    seal_webhook_secret,
    unseal,
    unseal_webhook_secret,
)
from ramp.provider_accounts.naming import (
    DEFAULT_NAME,
    DEFAULT_PRIORITY,
    check_name,
    check_priority,
)
from ramp.security.encryption import SecretBox
from ramp.security.network import UrlRefused
from ramp.timestamps import format_timestamp

log = logging.getLogger(__name__)

WEBHOOK_PATH = "/v1/provider-webhooks/{}"


class AccountStatus(StrEnum):
    HEALTHY = "HEALTHY"
    # The provider refused the credentials (at a call, not at entry): out of routing
    # until the owner sets working ones.
    UNHEALTHY = "UNHEALTHY"
    DISABLED = "DISABLED"


@dataclass(frozen=True)
class ProviderAccountView:
    """A provider account as its owner sees it: never the credentials."""

    id: str
    project_id: str
    provider_code: str
    name: str
    priority: int
    status: str
    status_reason: str | None
    credentials_hint: str | None
    webhook_url: str
    webhook_registered: bool
    created_at: datetime
    updated_at: datetime

    def as_json(self) -> dict[str, Any]:
        return {
            "providerAccountId": self.id,
            "projectId": self.project_id,
            "provider": self.provider_code,
            "name": self.name,
            "priority": self.priority,
            "status": self.status,
            "statusReason": self.status_reason,
            "credentialsHint": self.credentials_hint,
            "webhookUrl": self.webhook_url,
            "webhookRegistered": self.webhook_registered,
            "createdAt": format_timestamp(self.created_at),
            "updatedAt": format_timestamp(self.updated_at),
        }


def webhook_url(public_url: str, provider_account_id: str) -> str:
    """Where the provider posts this account's events."""
    return public_url.rstrip("/") + WEBHOOK_PATH.format(provider_account_id)


def view(account: ProviderAccount, public_url: str) -> ProviderAccountView:
    return ProviderAccountView(
        id=account.id,
        project_id=account.project_id,
        provider_code=account.provider_code,
        name=account.name,
        priority=account.priority,
        status=account.status,
        status_reason=account.status_reason,
        credentials_hint=account.credentials_hint,
        webhook_url=webhook_url(public_url, account.id),
        webhook_registered=(
            account.webhook_endpoint_ref is not None or account.webhook_public_key is not None
        ),
        created_at=account.created_at,
        updated_at=account.updated_at,
    )


def provider_codes(connectors: Connectors | None = None) -> tuple[str, ...]:
    """The providers a production project can connect."""
    return (connectors or Connectors()).codes()


def credentials_schema(
    provider_code: str, connectors: Connectors | None = None
) -> Mapping[str, Any]:
    """The JSON Schema of a provider's credentials (drives the CLI and the dashboard)."""
    return _connector(provider_code, connectors).credentials_schema


async def set_provider_account(
    session: AsyncSession,
    *,
    project_id: str,
    provider_code: str,
    credentials: Mapping[str, Any],
    secret_box: SecretBox,
    public_url: str,
    connectors: Connectors | None = None,
    name: str | None = None,
    priority: int | None = None,
) -> ProviderAccountView:
    """Connects (or reconnects, with new credentials) the project's account at a
    provider named `name` (DEFAULT_NAME without one); `priority` sets its routing
    priority (a new account without one: DEFAULT_PRIORITY; an existing one keeps its).

    Refused without storing anything: an unknown provider, a sandbox project, credentials
    that break the schema (the field is named, the value never quoted) or that the
    provider refuses (its reason), a provider that does not answer.
    """
    connectors = connectors or Connectors()
    connector = _connector(provider_code, connectors)
    name = check_name(name)
    if priority is not None:
        check_priority(priority)
    project = await session.get(Project, project_id)
    if project is None:
        raise NotFound("project")
    if project.environment != Environment.PRODUCTION:
        raise Conflict(
            ProviderAccountError.SANDBOX_PROJECT,
            "sandbox projects route through the mock providers; connect real providers "
            "to a production project",
        )
    _validate(connector, credentials)
    try:
        # Checked again on the address of each call (ramp/security/network.py).
        connectors.network.check_url(connector.base_url(credentials), field="baseUrl")
    except UrlRefused as refused:
        raise InvalidInput(
            ProviderAccountError.INVALID_CREDENTIALS,
            f"invalid {connector.code} credentials: {refused}",
            {"fields": [{"pointer": "/baseUrl", "reason": str(refused)}]},
        ) from None
    existing = (
        await session.exec(
            select(ProviderAccount.id).where(
                ProviderAccount.project_id == project_id,
                ProviderAccount.provider_code == connector.code,
                ProviderAccount.name == name,
            )
        )
    ).first()
    account_id = existing or str(uuid.uuid4())
    # No database connection is held across the provider's calls below.
    await session.commit()
    ctx = _context(connector, account_id, credentials, None)
    try:
        await connector.verify_credentials(ctx)
    except (CredentialsRejected, ProviderRefused) as refused:
        raise InvalidInput(
            ProviderAccountError.INVALID_CREDENTIALS, str(refused), {"provider": connector.code}
        ) from None
    except ProviderUnavailable as unavailable:
        # What was tried (the address; never the key) and what to do, in one sentence.
        raise Unavailable(
            ProviderAccountError.PROVIDER_UNREACHABLE,
            f"the credentials check at {ctx.base_url} failed: {unavailable}. Nothing was "
            "stored: check that this address answers (the credentials' baseUrl, or the "
            "documented host of their environment), then try again",
            {"provider": connector.code, "url": ctx.base_url},
        ) from None
    # Stored before the webhook is registered: a provider that tests our endpoint while
    # subscribing (Monerium) finds the account and its webhook secret already there.
    account = (await session.get(ProviderAccount, account_id)) if existing else None
    if account is None:
        account = ProviderAccount(
            id=account_id,
            project_id=project_id,
            provider_code=connector.code,
            name=name,
            priority=DEFAULT_PRIORITY if priority is None else priority,
        )
    elif priority is not None:
        account.priority = priority
    account.credentials_encrypted = seal(
        secret_box, project_id=project_id, provider_code=connector.code, credentials=credentials
    )
    account.credentials_hint = masked_hint(credentials, connector.credentials_schema)
    account.status = AccountStatus.HEALTHY
    account.status_reason = None
    account.active = True
    account.updated_at = utcnow()
    webhook_secret = _webhook_secret(connector, account, secret_box)
    session.add(account)
    await session.commit()
    ctx = ctx.model_copy(
        update={"webhook_secret": SecretStr(webhook_secret) if webhook_secret else None}
    )
    try:
        registration = await connector.register_webhook(ctx, webhook_url(public_url, account_id))
    except ProviderError as error:
        # Polling still moves every intent; the owner sees that events are not pushed.
        if not isinstance(error, NotSupported):
            log.warning("%s webhook not registered for %s: %s", connector.code, account_id, error)
        registration = None
    if registration is not None:
        account.webhook_endpoint_ref = registration.endpoint_ref
        account.webhook_public_key = registration.public_key
        account.updated_at = utcnow()
        session.add(account)
        await session.commit()
    return view(account, public_url)


async def list_provider_accounts(
    session: AsyncSession, *, project_id: str, public_url: str
) -> list[ProviderAccountView]:
    """The project's accounts at real providers (the sandbox's mocks have none)."""
    rows = (
        await session.exec(
            select(ProviderAccount)
            .where(ProviderAccount.project_id == project_id)
            .order_by(
                col(ProviderAccount.provider_code),
                col(ProviderAccount.priority),
                col(ProviderAccount.name),
            )
        )
    ).all()
    return [view(row, public_url) for row in rows if row.credentials_encrypted is not None]


async def get_provider_account(
    session: AsyncSession, *, project_id: str, provider_account_id: str, public_url: str
) -> ProviderAccountView:
    return view(await _owned(session, project_id, provider_account_id), public_url)


async def disable_provider_account(
    session: AsyncSession,
    *,
    project_id: str,
    public_url: str,
    provider_account_id: str | None = None,
    provider_code: str | None = None,
    name: str | None = None,
) -> ProviderAccountView:
    """Takes the account out of routing (by id, or by provider and name: DEFAULT_NAME
    without one). Intents already placed with it finish there; its credentials are kept
    for a later `set`."""
    if provider_account_id is None:
        found = (
            await session.exec(
                select(ProviderAccount).where(
                    ProviderAccount.project_id == project_id,
                    ProviderAccount.provider_code == (provider_code or "").upper(),
                    ProviderAccount.name == (name or DEFAULT_NAME),
                )
            )
        ).first()
        if found is None:
            raise NotFound("provider account")
        account = found
    else:
        account = await _owned(session, project_id, provider_account_id)
    account.status = AccountStatus.DISABLED
    account.status_reason = "disabled by the project owner"
    account.active = False
    account.updated_at = utcnow()
    session.add(account)
    await session.commit()
    return view(account, public_url)


async def set_priority(
    session: AsyncSession,
    *,
    project_id: str,
    provider_account_id: str,
    priority: int,
    public_url: str,
) -> ProviderAccountView:
    """Sets the account's routing priority (lower first among its provider's accounts);
    intents already placed keep their account."""
    check_priority(priority)
    account = await _owned(session, project_id, provider_account_id)
    account.priority = priority
    account.updated_at = utcnow()
    session.add(account)
    await session.commit()
    return view(account, public_url)


async def mark_unhealthy(
    session: AsyncSession,
    *,
    provider_account_id: str,
    reason: str,
    rejected_credentials: str | None = None,
) -> None:
    """The provider refused the account's credentials: out of routing, with the reason
    the owner sees. A disabled account stays disabled. `rejected_credentials` (the sealed
    credentials the refused call used): when the owner has set others since, a call
    still in flight with the old ones leaves the account as the owner left it."""
    account = await session.get(ProviderAccount, provider_account_id)
    if account is None or account.status == AccountStatus.DISABLED:
        return
    if rejected_credentials is not None and account.credentials_encrypted != rejected_credentials:
        return
    account.status = AccountStatus.UNHEALTHY
    account.status_reason = reason[:500]
    account.updated_at = utcnow()
    session.add(account)
    await session.commit()


async def provider_context(
    session: AsyncSession,
    *,
    provider_account_id: str,
    secret_box: SecretBox,
    connectors: Connectors | None = None,
) -> tuple[ProviderAccount, Connector, ProviderContext]:
    """The account, its connector and its decrypted credentials, for one provider call
    (in an activity: never in a workflow's history)."""
    account = await session.get(ProviderAccount, provider_account_id)
    if account is None or account.credentials_encrypted is None:
        raise NotFound("provider account")
    connector = _connector(account.provider_code, connectors)
    raw = unseal(
        secret_box,
        account.credentials_encrypted,
        project_id=account.project_id,
        provider_code=account.provider_code,
    )
    ctx = _context(connector, account.id, raw, account.webhook_public_key)
    if account.webhook_secret_encrypted is not None:
        secret = unseal_webhook_secret(
            secret_box,
            account.webhook_secret_encrypted,
            provider_account_id=account.id,
            provider_code=account.provider_code,
        )
        ctx = ctx.model_copy(update={"webhook_secret": SecretStr(secret)})
    return account, connector, ctx


# --- helpers ----------------------------------------------------------------------------


def _connector(provider_code: str, connectors: Connectors | None) -> Connector:
    connector = (connectors or Connectors()).get(provider_code.upper())
    if connector is None:
        raise InvalidInput(
            ProviderAccountError.UNKNOWN_PROVIDER,
            f"no production provider {provider_code!r}",
            {"providers": list(provider_codes(connectors))},
        )
    return connector


def _webhook_secret(
    connector: Connector, account: ProviderAccount, secret_box: SecretBox
) -> str | None:
    """The secret the provider is to sign this account's webhooks with, where we choose
    it: the one stored (a subscription made earlier has it), else a new one, sealed on
    the row. None for a provider that signs with its own key (Bridge)."""
    if not isinstance(connector, GeneratesWebhookSecret):
        return None
    if account.webhook_secret_encrypted is not None:
        return unseal_webhook_secret(
            secret_box,
            account.webhook_secret_encrypted,
            provider_account_id=account.id,
            provider_code=account.provider_code,
        )
    secret = connector.new_webhook_secret()
    account.webhook_secret_encrypted = seal_webhook_secret(
        secret_box, provider_account_id=account.id, provider_code=connector.code, secret=secret
    )
    return secret


def _validate(connector: Connector, credentials: Mapping[str, Any]) -> None:
    validator = jsonschema.Draft202012Validator(dict(connector.credentials_schema))
    errors = sorted(validator.iter_errors(dict(credentials)), key=lambda e: list(e.path))
    if errors:
        fields = [_violation(error, credentials) for error in errors]
        first = fields[0]
        raise InvalidInput(
            ProviderAccountError.INVALID_CREDENTIALS,
            f"invalid {connector.code} credentials: {first['pointer']} {first['reason']} "
            f"(checked here: nothing was sent to {connector.code})",
            {"fields": fields},
        )


def _violation(error: jsonschema.ValidationError, credentials: Mapping[str, Any]) -> dict[str, str]:
    """A schema violation as a pointer and a reason that says what is allowed. The
    validator's own message may quote the value (a key), so it is never used: the
    schema's side (allowed values, names of fields) is."""
    where = "/" + "/".join(str(p) for p in error.path)
    allowed: Any = error.validator_value
    if error.validator == "enum":
        return {"pointer": where, "reason": "must be one of " + ", ".join(map(str, allowed))}
    if error.validator == "required":
        missing = [name for name in allowed if name not in credentials]
        return {"pointer": f"/{missing[0]}" if missing else where, "reason": "is required"}
    if error.validator == "additionalProperties":
        known = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        extra = sorted(name for name in credentials if name not in known)
        return {
            "pointer": f"/{extra[0]}" if extra else where,
            "reason": "is not one of the fields: " + ", ".join(known),
        }
    if error.validator in ("minLength", "maxLength", "pattern", "type"):
        return {"pointer": where, "reason": f"fails '{error.validator}' ({allowed})"}
    return {"pointer": where, "reason": f"fails '{error.validator}'"}


def _context(
    connector: Connector,
    account_id: str,
    credentials: Mapping[str, Any],
    webhook_public_key: str | None,
) -> ProviderContext:
    return ProviderContext(
        provider_account_id=account_id,
        credentials=ProviderCredentials.model_validate(
            {"values": {key: str(value) for key, value in credentials.items()}}
        ),
        base_url=connector.base_url(credentials),
        webhook_public_key=webhook_public_key,
    )


async def _owned(session: AsyncSession, project_id: str, account_id: str) -> ProviderAccount:
    account = await session.get(ProviderAccount, account_id)
    if account is None or account.project_id != project_id:
        raise NotFound("provider account")
    return account
