"""Compliance data asked once: what a customer gave one provider fills the next one's
forms, with the customer's consent, per pair of provider accounts.

- What is kept (`ComplianceRecord`, encrypted): the fields of a step's form the
  customer submitted on our hosted page and the provider did not reject (ONBOARDING),
  and what a provider whose own KYC flow collected the identity gives back once it
  verified the customer (PROVIDER: Bridge's customer object, names and address).
- What may be shared: the identity (KYC_BASIC) and the proof of address
  (PROOF_OF_ADDRESS), between steps of the same requirement only. Terms of service
  are each provider's own; they are never carried over.
- Consent (`ComplianceConsent`): the page asks "share what you gave <A> with <B>?" once
  per source and target account; the answer (granted or refused), the field paths it
  covered and when are kept. Only granted sources fill anything.
- Use: the form of an open step lists the fields consented data fills (the page leaves
  them out); a submission is the consented fields overlaid with what the customer
  typed; a step whose whole form consented data fills is submitted on the customer's
  behalf when they consent (the provider still decides, as for a typed submission).

Values never leave this module except toward the provider the customer consented to
(through the step's submission) and are never logged.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Final

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.adapters.capabilities import SharesCustomerDetails
from ramp.adapters.contract import ProviderCustomerRef, ProviderError
from ramp.adapters.registry import Connectors
from ramp.catalog import provider_by_code
from ramp.db.tables import (
    ComplianceConsent,
    ComplianceRecord,
    ComplianceStepRow,
    IntentRow,
    ProviderAccount,
    ProviderCustomer,
    SatisfiedRequirement,
)
from ramp.db.types import utcnow
from ramp.db.upsert import upsert
from ramp.onboarding.forms import FormField, form_fields, parse_date
from ramp.provider_accounts.service import provider_context
from ramp.security.encryption import SecretBox

logger = logging.getLogger("ramp.onboarding.reuse")

SHAREABLE: Final = ("KYC_BASIC", "PROOF_OF_ADDRESS")
ONBOARDING: Final = "ONBOARDING"
PROVIDER: Final = "PROVIDER"
# Steps a customer can still be asked for.
_OPEN: Final = ("PENDING", "REJECTED")


def value_at(payload: Mapping[str, Any], dotted: str) -> Any:
    node: Any = payload
    for part in dotted.split("."):
        if not isinstance(node, Mapping):
            return None
        node = node.get(part)
    return node


def values_by_field(payload: Mapping[str, Any], fields: Sequence[FormField]) -> dict[str, Any]:
    """The values `payload` holds for the form's fields, by dotted name."""
    found = {}
    for f in fields:
        value = value_at(payload, f.name)
        if value not in (None, "", {}):
            found[f.name] = value
    return found


def overlay(held: Mapping[str, Any], typed: Mapping[str, Any]) -> dict[str, Any]:
    """A submission body: the held values (by dotted name) with what was typed on top."""
    body: dict[str, Any] = {}
    for dotted, value in held.items():
        node = body
        *parents, last = dotted.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return _merge(body, typed)


def _merge(base: dict[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    for key, value in top.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            base[key] = _merge(base[key], value)
        else:
            base[key] = value
    return base


def provider_name(code: str) -> str:
    found = provider_by_code(code)
    return found.name if found is not None else code.title()


@dataclass(frozen=True)
class Offer:
    """One provider account whose data could fill this intent's open steps."""

    provider_account_id: str
    provider_name: str
    # "STEP_CODE.field.path" of each field it would fill.
    fields: tuple[str, ...]
    granted: bool | None
    decided_at: datetime | None


@dataclass(frozen=True)
class Reuse:
    offers: tuple[Offer, ...] = ()
    # Consented values by step code, then dotted field name (never rendered).
    held: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # Who each consented value comes from: step code -> field name -> provider name.
    prefilled: Mapping[str, Mapping[str, str]] = field(default_factory=dict)


def open_forms(
    intent: IntentRow, steps: Sequence[ComplianceStepRow]
) -> dict[str, tuple[FormField, ...]]:
    """The forms of the intent's shareable steps the customer may still be asked for."""
    forms: dict[str, tuple[FormField, ...]] = {}
    for step in steps:
        handoff = (step.step_metadata or {}).get("handoff")
        if step.code not in SHAREABLE or step.status not in _OPEN:
            continue
        if isinstance(handoff, dict) and handoff.get("mode") in ("LINK", "WAIT"):
            continue  # the provider collects this step itself
        fields = form_fields(step.code, intent.transfer_amount, intent.provider_code)
        if fields is not None:
            forms[step.code] = fields
    return forms


async def reuse_for(
    session: AsyncSession, intent: IntentRow, forms: Mapping[str, Sequence[FormField]]
) -> Reuse:
    """What other provider accounts hold for `forms`, and what the customer consented to
    share with the intent's account."""
    if not forms:
        return Reuse()
    records = (
        await session.exec(
            select(ComplianceRecord)
            .where(
                ComplianceRecord.customer_id == intent.customer_id,
                col(ComplianceRecord.provider_account_id) != intent.provider_account_id,
                col(ComplianceRecord.requirement_code).in_(list(forms)),
            )
            .order_by(col(ComplianceRecord.recorded_at))
        )
    ).all()
    answers = {
        c.source_provider_account_id: c
        for c in (
            await session.exec(
                select(ComplianceConsent).where(
                    ComplianceConsent.customer_id == intent.customer_id,
                    ComplianceConsent.target_provider_account_id == intent.provider_account_id,
                )
            )
        ).all()
    }
    offered: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    held: dict[str, dict[str, Any]] = {}
    prefilled: dict[str, dict[str, str]] = {}
    # Oldest first: a later record's value wins where two sources hold the same field.
    for record in records:
        values = values_by_field(record.fields, forms[record.requirement_code])
        if not values or not _still_valid(record):
            continue
        source = record.provider_account_id
        names[source] = provider_name(record.provider_code)
        offered.setdefault(source, []).extend(f"{record.requirement_code}.{n}" for n in values)
        answer = answers.get(source)
        if answer is not None and answer.granted:
            held.setdefault(record.requirement_code, {}).update(values)
            prefilled.setdefault(record.requirement_code, {}).update(
                dict.fromkeys(values, names[source])
            )
    offers = tuple(
        Offer(
            provider_account_id=source,
            provider_name=names[source],
            fields=tuple(dict.fromkeys(paths)),
            granted=None if source not in answers else answers[source].granted,
            decided_at=None if source not in answers else answers[source].decided_at,
        )
        for source, paths in offered.items()
    )
    return Reuse(offers=offers, held=held, prefilled=prefilled)


def _still_valid(record: ComplianceRecord) -> bool:
    """A proof of address is a document of the last 12 months (the form's rule): an older
    one is not offered, the customer uploads a recent one."""
    issued = record.fields.get("issueDate")
    if record.requirement_code != "PROOF_OF_ADDRESS" or not isinstance(issued, str):
        return True
    try:
        return parse_date(issued) >= date.today() - timedelta(days=365)
    except ValueError:
        return False


async def record(
    session: AsyncSession,
    *,
    customer_id: str,
    provider_account_id: str,
    provider_code: str,
    requirement_code: str,
    fields: Mapping[str, Any],
    origin: str,
) -> None:
    """Keeps what the customer gave (the caller commits); the latest submission wins. A
    provider's empty answer is kept too, so that it is not asked again."""
    if requirement_code not in SHAREABLE or (origin == ONBOARDING and not fields):
        return
    row = ComplianceRecord(
        customer_id=customer_id,
        provider_account_id=provider_account_id,
        requirement_code=requirement_code,
        provider_code=provider_code,
        origin=origin,
        fields=dict(fields),
        recorded_at=utcnow(),
    )
    await upsert(session, [row], ["customer_id", "provider_account_id", "requirement_code"])


async def decide(
    session: AsyncSession, intent: IntentRow, source_account_id: str, granted: bool,
    fields: Sequence[str],
) -> ComplianceConsent:  # fmt: skip
    """The customer's answer for one source (the caller commits); answering again
    replaces the answer (a customer may withdraw a consent, or give it later)."""
    answer = ComplianceConsent(
        customer_id=intent.customer_id,
        source_provider_account_id=source_account_id,
        target_provider_account_id=intent.provider_account_id,
        granted=granted,
        fields=list(fields),
        decided_at=utcnow(),
    )
    await upsert(
        session,
        [answer],
        ["customer_id", "source_provider_account_id", "target_provider_account_id"],
    )
    return answer


async def collect_provider_details(
    session: AsyncSession,
    intent: IntentRow,
    secret_box: SecretBox,
    connectors: Connectors | None,
) -> None:
    """Reads back, once, what providers whose own flow verified the customer's identity
    give of it (`SharesCustomerDetails`: Bridge), to offer it to the intent's provider.
    A provider that does not answer is skipped (asked again on the next view); the
    customer types what is missing. No connection is held across the provider's call."""
    known = (
        await session.exec(
            select(ProviderCustomer, ProviderAccount)
            .join(ProviderAccount, col(ProviderAccount.id) == ProviderCustomer.provider_account_id)
            .where(
                ProviderCustomer.customer_id == intent.customer_id,
                ProviderCustomer.provider_account_id != intent.provider_account_id,
            )
        )
    ).all()
    calls = []
    for customer, account in known:
        kept = await session.get(ComplianceRecord, (intent.customer_id, account.id, "KYC_BASIC"))
        verified = (
            await session.exec(
                select(SatisfiedRequirement.requirement_code).where(
                    SatisfiedRequirement.customer_id == intent.customer_id,
                    SatisfiedRequirement.provider_code == account.provider_code,
                    SatisfiedRequirement.requirement_code == "KYC_BASIC",
                )
            )
        ).first()
        if kept is not None or verified is None or account.credentials_encrypted is None:
            continue
        _, connector, ctx = await provider_context(
            session, provider_account_id=account.id, secret_box=secret_box,
            connectors=connectors,
        )  # fmt: skip
        if isinstance(connector, SharesCustomerDetails):
            ref = ProviderCustomerRef(
                provider_customer_id=customer.provider_customer_id, handles=customer.handles
            )
            calls.append((account.id, account.provider_code, connector, ctx, ref))
    await session.commit()
    for account_id, provider_code, connector, ctx, ref in calls:
        try:
            details = await connector.customer_details(ctx, ref)
        except ProviderError as error:
            # The account and the error's kind only: its text may quote the customer.
            logger.warning(
                "customer details unavailable from provider account %s (%s)",
                account_id, type(error).__name__,
            )  # fmt: skip
            continue
        await record(
            session,
            customer_id=intent.customer_id,
            provider_account_id=account_id,
            provider_code=provider_code,
            requirement_code="KYC_BASIC",
            fields=details,
            origin=PROVIDER,
        )
        await session.commit()
