"""The intent's state machines as pure functions: no server, no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from ramp.errors import IntentError, ProviderRefusal
from ramp.intents import cancellation, lifecycle
from ramp.intents.amounts import AmountProblem, parse_amount
from ramp.intents.compliance import (
    CheckContext,
    VerificationRecord,
    evaluate,
    requirement_check,
    verification_expiry,
)
from ramp.intents.models import (
    CheckResult,
    IntentRequest,
    IntentState,
    ProviderEvent,
    ProviderSelection,
    ProviderTransaction,
    RequirementSpec,
    StepUpdate,
    TransactionContext,
)
from ramp.intents.states import (
    IntentStatus,
    PlanStatus,
    ProviderEventType,
    StepOutcome,
    StepStatus,
    TransactionStatus,
    states_markdown,
)
from ramp.money import Money

NOW = datetime(2026, 3, 29, 10, 5, tzinfo=UTC)
DOCS = Path(__file__).parents[1] / "docs" / "states.md"
# Thames' graph is a diamond: KYC_ENHANCED needs both KYC_BASIC and PROOF_OF_ADDRESS.
DIAMOND = [
    RequirementSpec(code="TERMS_OF_SERVICE", description="t", depends_on=[], edge_id="e1"),
    RequirementSpec(
        code="KYC_BASIC", description="k", depends_on=["TERMS_OF_SERVICE"], edge_id="e2"
    ),
    RequirementSpec(
        code="PROOF_OF_ADDRESS", description="p", depends_on=["TERMS_OF_SERVICE"], edge_id="e3"
    ),
    RequirementSpec(
        code="KYC_ENHANCED",
        description="e",
        depends_on=["KYC_BASIC", "PROOF_OF_ADDRESS"],
        edge_id="e4",
    ),
]


def new_intent(satisfied: set[str], auto_execute: bool = False) -> IntentState:
    request = IntentRequest(
        intent_id="i-1",
        project_id="p",
        customer_id="c",
        src_account_id="s",
        dest_account_id="d",
        amount="100.00",
        auto_execute=auto_execute,
        lifetime_seconds=3600,
        fingerprint="f",
    )
    selection = ProviderSelection(
        provider_id="prov",
        provider_code="sandbox_thames",
        provider_name="Thames",
        provider_account_id="pa",
        movement_type="ONRAMP",
        source_currency="GBP",
        destination_currency="USDC_ETHEREUM",
        requirements=DIAMOND,
    )
    checks = [CheckResult(code=r.code, satisfied=r.code in satisfied) for r in DIAMOND]
    return lifecycle.open_intent(request, selection, checks, NOW)


def later(seconds: int) -> datetime:
    return NOW + timedelta(seconds=seconds)


def verify(state: IntentState, code: str, seconds: int = 1) -> bool:
    update = StepUpdate(step_code=code, outcome=StepOutcome.VERIFIED)
    return lifecycle.apply_step_update(state, update, later(seconds))


def with_transaction(state: IntentState) -> IntentState:
    created = ProviderTransaction(
        provider_reference="ref", context=TransactionContext(deposit_instructions=[])
    )
    lifecycle.attach_transaction(state, created, later(5))
    return state


def event(state: IntentState, kind: ProviderEventType, event_id: str = "e") -> bool:
    assert state.transaction is not None
    return lifecycle.apply_provider_event(
        state,
        ProviderEvent(event_id=event_id, transaction_id=state.transaction.id, type=kind),
        later(10),
    )


def test_docs_page_is_generated_from_the_code() -> None:
    page = DOCS.read_text()
    start = page.index("<!-- generated: states_markdown() -->\n") + len(
        "<!-- generated: states_markdown() -->\n"
    )
    end = page.index("<!-- end generated -->")
    assert page[start:end] == states_markdown()


def test_a_plan_starts_at_its_first_unfulfilled_step_in_dependency_order() -> None:
    # PROOF_OF_ADDRESS lapsed: KYC_ENHANCED, on record but depending on it, is redone.
    state = new_intent({"TERMS_OF_SERVICE", "KYC_BASIC", "KYC_ENHANCED"})
    assert [s.status for s in state.plan.steps] == [
        StepStatus.COMPLETED,
        StepStatus.COMPLETED,
        StepStatus.PENDING,
        StepStatus.PENDING,
    ]
    assert state.plan.current_step_code == "PROOF_OF_ADDRESS"
    assert state.onboarding is True
    assert state.expired_at == NOW + timedelta(hours=1)
    assert not verify(state, "KYC_ENHANCED")
    assert verify(state, "PROOF_OF_ADDRESS", 2)
    assert state.plan.current_step_code == "KYC_ENHANCED"
    assert not lifecycle.should_auto_execute(state)
    assert verify(state, "KYC_ENHANCED", 3)
    assert state.plan.status is PlanStatus.COMPLETED
    assert state.plan.current_step_code is None
    assert state.status is IntentStatus.PENDING
    # Without autoExecute the client creates the transaction.
    assert not lifecycle.should_auto_execute(state)
    assert lifecycle.execution_refusal(state) is None


def test_a_record_does_not_count_before_its_dependencies() -> None:
    state = new_intent({"KYC_BASIC"})
    assert {s.status for s in state.plan.steps} == {StepStatus.PENDING}
    assert state.plan.current_step_code == "TERMS_OF_SERVICE"


def test_a_fully_satisfied_plan_completes_at_once_and_executes() -> None:
    state = new_intent({r.code for r in DIAMOND})
    assert state.plan.status is PlanStatus.COMPLETED
    assert state.onboarding is False
    assert lifecycle.should_auto_execute(state)
    with_transaction(state)
    assert state.status is IntentStatus.PROCESSING
    refusal = lifecycle.execution_refusal(state)
    assert refusal is not None
    assert refusal[0] is IntentError.TRANSACTION_EXISTS


def test_auto_execute_waits_for_the_plan() -> None:
    state = new_intent({"TERMS_OF_SERVICE", "KYC_BASIC", "PROOF_OF_ADDRESS"}, auto_execute=True)
    assert not lifecycle.should_auto_execute(state)
    refusal = lifecycle.execution_refusal(state)
    assert refusal is not None
    assert refusal[0] is IntentError.COMPLIANCE_NOT_COMPLETE
    verify(state, "KYC_ENHANCED")
    assert lifecycle.should_auto_execute(state)


def test_only_the_current_step_moves_and_each_change_bumps_the_revision() -> None:
    state = new_intent(set())
    revision = state.revision
    assert not verify(state, "KYC_BASIC")
    assert state.revision == revision
    submit = StepUpdate(step_code="TERMS_OF_SERVICE", outcome=StepOutcome.SUBMITTED)
    assert lifecycle.apply_step_update(state, submit, later(1))
    assert state.plan.steps[0].status is StepStatus.SUBMITTED
    assert "submittedAt" in state.plan.steps[0].metadata
    assert not lifecycle.apply_step_update(state, submit, later(2))
    assert state.revision == revision + 1
    assert state.updated_at == later(1)


def test_a_rejection_fails_the_plan_and_the_intent() -> None:
    state = new_intent(set())
    reject = StepUpdate(
        step_code="TERMS_OF_SERVICE", outcome=StepOutcome.REJECTED, reason="declined"
    )
    assert lifecycle.apply_step_update(state, reject, later(1))
    assert state.status is IntentStatus.FAILED
    assert state.plan.status is PlanStatus.FAILED
    assert state.plan.steps[0].metadata["reason"] == "declined"
    assert state.failure_reason == "TERMS_OF_SERVICE rejected: declined"
    assert lifecycle.is_terminal(state)
    assert not verify(state, "TERMS_OF_SERVICE", 2)
    assert not lifecycle.expire(state, later(7200))


def test_provider_events_follow_the_table_and_are_deduplicated() -> None:
    state = with_transaction(new_intent({r.code for r in DIAMOND}))
    assert not event(state, ProviderEventType.SETTLED)
    assert event(state, ProviderEventType.DEPOSIT_RECEIVED, "e1")
    assert not event(state, ProviderEventType.PAYOUT_SENT, "e1")  # same id: a redelivery
    assert event(state, ProviderEventType.PAYOUT_SENT, "e2")
    assert event(state, ProviderEventType.SETTLED, "e3")
    assert state.transaction is not None
    assert state.transaction.status is TransactionStatus.SUCCESS
    assert [e.event_id for e in state.transaction.events] == ["e1", "e2", "e3"]
    assert state.status is IntentStatus.COMPLETED
    assert lifecycle.is_terminal(state)


def test_expiry_applies_until_the_deposit_arrives() -> None:
    waiting = new_intent(set())
    assert lifecycle.expire(waiting, later(3600))
    assert waiting.status is IntentStatus.EXPIRED
    pending = with_transaction(new_intent({r.code for r in DIAMOND}))
    assert lifecycle.expire(pending, later(3600))
    assert pending.transaction is not None
    assert pending.transaction.status is TransactionStatus.CANCELLED
    moving = with_transaction(new_intent({r.code for r in DIAMOND}))
    event(moving, ProviderEventType.DEPOSIT_RECEIVED)
    assert not lifecycle.deposit_pending(moving)
    assert not lifecycle.expire(moving, later(3600))
    assert moving.status is IntentStatus.PROCESSING


def test_cancellation_applies_until_the_deposit_arrives() -> None:
    waiting = new_intent(set())
    assert cancellation.refusal(waiting) is None
    cancellation.cancel(waiting, later(60))
    assert waiting.status is IntentStatus.CANCELLED
    assert waiting.revision == 2
    closed = cancellation.refusal(waiting)
    assert closed is not None
    assert closed.details == {"reason": "INTENT_CLOSED", "status": "CANCELLED"}

    pending = with_transaction(new_intent({r.code for r in DIAMOND}))
    order = cancellation.order_to_void(pending)
    assert order is not None
    assert order.provider_reference == "ref"
    cancellation.cancel(pending, later(60))
    assert pending.transaction is not None
    assert pending.transaction.status is TransactionStatus.CANCELLED
    assert cancellation.order_to_void(new_intent(set())) is None

    moving = with_transaction(new_intent({r.code for r in DIAMOND}))
    event(moving, ProviderEventType.DEPOSIT_RECEIVED)
    moved = cancellation.refusal(moving)
    assert moved is not None
    assert moved.code == IntentError.INTENT_NOT_CANCELLABLE
    assert moved.details["reason"] == "DEPOSIT_RECEIVED"

    # The provider's answer to the void: it holds the deposit (409), or it failed (502).
    held = cancellation.provider_refusal(moving, ProviderRefusal.ORDER_NOT_CANCELLABLE)
    assert held.code == IntentError.INTENT_NOT_CANCELLABLE
    assert held.details["reason"] == "DEPOSIT_RECEIVED"
    assert cancellation.provider_refusal(moving, None).code == IntentError.PROVIDER_ERROR


def test_derived_ids_are_stable_and_distinct() -> None:
    assert lifecycle.derived_id("i", "plan") == lifecycle.derived_id("i", "plan")
    assert lifecycle.derived_id("i", "plan") != lifecycle.derived_id("j", "plan")
    assert lifecycle.derived_id("i", "plan") != lifecycle.derived_id("i", "transaction")


# --- requirement checks ---------------------------------------------------------------


def context(code: str, records: dict[str, VerificationRecord]) -> CheckContext:
    return CheckContext(
        customer_id="c",
        provider_code="p",
        requirement_code=code,
        amount=Decimal("100"),
        currency_code="USD",
        records=records,
        now=NOW,
    )


def test_a_verification_on_record_satisfies_until_it_expires() -> None:
    assert evaluate(context("KYC_BASIC", {})) == "no verification on record"
    recorded = VerificationRecord(NOW - timedelta(days=400), None)
    assert evaluate(context("KYC_BASIC", {"KYC_BASIC": recorded})) is None
    satisfied_at = NOW - timedelta(days=91)
    old_address = VerificationRecord(
        satisfied_at, verification_expiry("PROOF_OF_ADDRESS", satisfied_at)
    )
    reason = evaluate(context("PROOF_OF_ADDRESS", {"PROOF_OF_ADDRESS": old_address}))
    assert reason == "the verification on record has expired"


def test_a_check_that_breaks_means_not_satisfied() -> None:
    @requirement_check("TEST_BROKEN")
    def broken(_context: CheckContext) -> None:
        raise RuntimeError("vendor down")

    assert evaluate(context("TEST_BROKEN", {})) == "the check could not be completed"


# --- amounts ---------------------------------------------------------------------------


@pytest.mark.parametrize("raw", ["1", "0.5", "100.00", "123456789012345678901234567890.5"])
def test_well_formed_amounts_parse_exactly(raw: str) -> None:
    assert parse_amount(raw) == Decimal(raw)


@pytest.mark.parametrize("raw", ["0", "0.000", "00", "1.", ".1", "-1", "1e2", "1_000", "١٢"])
def test_malformed_amounts_are_problems(raw: str) -> None:
    with pytest.raises(AmountProblem):
        parse_amount(raw)


def test_smallest_units_never_round() -> None:
    eth = Money(Decimal("123456789012.123456789012345678"), "ETH_ETHEREUM")
    assert eth.in_smallest_units() == 123456789012123456789012345678
