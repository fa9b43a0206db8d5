"""The pure state changes of connector intents (ramp/intents/handoffs.py): a provider's
standing applied to the plan, a refusal, an unmatched deposit and its webhook event."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from ramp.adapters.contract import AccountDetails, AmountUnit, CallMode, TransactionOrder
from ramp.intents import handoffs, lifecycle
from ramp.intents.events import WebhookEventType, transition_events
from ramp.intents.models import (
    CheckResult,
    IntentRequest,
    IntentState,
    ProviderEvent,
    ProviderSelection,
    RequirementSpec,
)
from ramp.intents.provider_calls import ComplianceStanding, Handoff
from ramp.intents.states import (
    IntentStatus,
    PlanStatus,
    ProviderEventType,
    StepOutcome,
    StepStatus,
)
from ramp.money import Money
from workflows import provider_calls
from workflows.provider_flow import _unmatched

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
REQUIREMENTS = [
    RequirementSpec(code="TERMS_OF_SERVICE", description="t", depends_on=[], edge_id="e1"),
    RequirementSpec(
        code="KYC_BASIC", description="k", depends_on=["TERMS_OF_SERVICE"], edge_id="e2"
    ),
]


def bridge_intent() -> IntentState:
    request = IntentRequest(
        intent_id="i-1", project_id="p", customer_id="c", src_account_id="s",
        dest_account_id="d", amount="100.00", lifetime_seconds=3600, fingerprint="f",
    )  # fmt: skip
    selection = ProviderSelection(
        provider_id="b", provider_code="BRIDGE", provider_name="Bridge",
        provider_account_id="pa", movement_type="ONRAMP", source_currency="USD",
        destination_currency="USDC_ETHEREUM", requirements=REQUIREMENTS, connector=True,
    )  # fmt: skip
    checks = [CheckResult(code=r.code, satisfied=False) for r in REQUIREMENTS]
    return lifecycle.open_intent(request, selection, checks, NOW)


def standing(tos: StepOutcome | None, kyc: StepOutcome | None) -> ComplianceStanding:
    return ComplianceStanding(
        provider_customer_id="cus",
        handoffs=[
            Handoff(requirement="TERMS_OF_SERVICE", mode="LINK", url="https://t", outcome=tos),
            Handoff(
                requirement="KYC_BASIC", mode="LINK", url="https://k", embeddable=True,
                outcome=kyc, reason="expired ID" if kyc is StepOutcome.REJECTED else None,
            ),
        ],
    )  # fmt: skip


def test_links_are_shown_on_open_steps_and_nothing_is_decided() -> None:
    state = bridge_intent()
    assert handoffs.apply_standing(state, standing(None, None), NOW)
    steps = {s.code: s for s in state.plan.steps}
    assert steps["KYC_BASIC"].metadata["handoff"] == {
        "mode": "LINK", "embeddable": True, "url": "https://k",
    }  # fmt: skip
    assert all(s.status is StepStatus.PENDING for s in state.plan.steps)
    # The same standing again changes nothing (no revision, no event).
    revision = state.revision
    assert not handoffs.apply_standing(state, standing(None, None), NOW)
    assert state.revision == revision


def test_verdicts_apply_in_plan_order_even_when_the_later_one_came_first() -> None:
    state = bridge_intent()
    # Identity approved while the terms are still open: nothing can complete yet.
    assert handoffs.apply_standing(state, standing(None, StepOutcome.VERIFIED), NOW)
    assert state.plan.status is PlanStatus.PENDING
    assert handoffs.apply_standing(state, standing(StepOutcome.VERIFIED, StepOutcome.VERIFIED), NOW)
    assert state.plan.status.value == PlanStatus.COMPLETED.value


def test_a_rejection_fails_the_intent_with_the_providers_reason() -> None:
    state = bridge_intent()
    handoffs.apply_standing(state, standing(StepOutcome.VERIFIED, StepOutcome.REJECTED), NOW)
    assert state.status is IntentStatus.FAILED
    assert state.failure_reason == "KYC_BASIC rejected: expired ID"


def test_a_refusal_fails_the_intent_once() -> None:
    state = bridge_intent()
    assert handoffs.fail(state, "Bridge: amount below the minimum", NOW)
    assert state.status is IntentStatus.FAILED
    assert not handoffs.fail(state, "again", NOW)
    assert state.failure_reason == "Bridge: amount below the minimum"


def test_an_unmatched_deposit_is_reported_once_by_webhook() -> None:
    state = bridge_intent()
    lifecycle.expire(state, NOW + timedelta(hours=1))
    before = state.model_copy(deep=True)
    assert handoffs.mark_unmatched(state, "tr:DEPOSIT_RECEIVED", "refund it", NOW)
    events = transition_events(before, state, NOW)
    assert [e.event_type for e in events] == [WebhookEventType.DEPOSIT_UNMATCHED]
    assert events[0].model_dump(mode="json")["data"]["unmatchedReason"] == "refund it"
    again = state.model_copy(deep=True)
    assert not handoffs.mark_unmatched(state, "tr:other", "twice", NOW)
    assert transition_events(again, state, NOW) == []


def test_a_form_is_ours_to_show_and_decides_nothing() -> None:
    """The sandbox's connector answers FORM for every step: our hosted onboarding shows
    it and our verification decides, so the standing changes nothing."""
    state = bridge_intent()
    forms = ComplianceStanding(
        provider_customer_id="c",
        handoffs=[Handoff(requirement=r.code, mode="FORM") for r in REQUIREMENTS],
    )
    assert not handoffs.apply_standing(state, forms, NOW)
    assert all("handoff" not in s.metadata for s in state.plan.steps)


def test_a_deposit_in_another_currency_is_unmatched() -> None:
    state = bridge_intent()
    same = ProviderEvent(
        event_id="e1", transaction_id="t", type=ProviderEventType.DEPOSIT_RECEIVED,
        received_amount="100.00", received_currency="USD",
    )  # fmt: skip
    assert _unmatched(state, same) is None
    other = same.model_copy(update={"received_currency": "EUR"})
    reason = _unmatched(state, other)
    assert reason is not None
    assert "100.00 EUR" in reason
    assert "100.00 USD" in reason
    # Without a currency, the provider means the order's.
    assert _unmatched(state, same.model_copy(update={"received_currency": None})) is None


def test_an_order_is_written_in_the_connectors_amount_unit() -> None:
    order = TransactionOrder(
        transaction_id="t", movement_type="ONRAMP", amount="25.5",
        source=AccountDetails(currency_code="USD", metadata={}),
        destination=AccountDetails(currency_code="USDC_ETHEREUM", metadata={}),
    )  # fmt: skip
    assert order.money == Money(Decimal("25.5"), "USD")
    assert order.amount_in(AmountUnit.BASE) == "25.5"
    assert order.amount_in(AmountUnit.MINOR) == "2550"


def test_the_call_mode_is_the_connectors_and_old_histories_read_as_before() -> None:
    selection = bridge_intent().provider
    assert provider_calls.call_mode(selection) is CallMode.REMOTE  # recorded before issue 25
    local = selection.model_copy(update={"connector": False})
    assert provider_calls.call_mode(local) is CallMode.LOCAL
    declared = local.model_copy(update={"call_mode": "REMOTE"})
    assert provider_calls.call_mode(declared) is CallMode.REMOTE
    assert provider_calls.orders_inline(local)
    assert not provider_calls.orders_inline(declared)
