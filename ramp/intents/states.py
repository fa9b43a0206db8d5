"""The state machines of an intent, its compliance plan, its steps and its transaction.

This module is the single source of every transition: the workflow applies them, the
sandbox endpoints check them before signalling, and `docs/states.md` is generated from
them (a test keeps the page equal to `states_markdown()`).
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple


class IntentStatus(StrEnum):
    PENDING = "PENDING"  # compliance open, or complete and awaiting execution
    PROCESSING = "PROCESSING"  # a transaction exists and has not ended
    COMPLETED = "COMPLETED"  # the transaction settled
    FAILED = "FAILED"  # a requirement was rejected, or the transaction failed
    EXPIRED = "EXPIRED"  # the lifetime ran out before money started moving
    CANCELLED = "CANCELLED"  # the provider cancelled the transaction before the deposit


class PlanStatus(StrEnum):
    PENDING = "PENDING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"


class StepStatus(StrEnum):
    PENDING = "PENDING"  # waiting for the customer
    SUBMITTED = "SUBMITTED"  # the customer submitted; verification under way
    COMPLETED = "COMPLETED"  # satisfied: verified now, or already on record
    REJECTED = "REJECTED"  # verification refused; the reason is in the step's metadata


class StepOutcome(StrEnum):
    """What the hosted onboarding (or the verification behind it) reports for a step."""

    SUBMITTED = "SUBMITTED"
    VERIFIED = "VERIFIED"
    REJECTED = "REJECTED"


class TransactionStatus(StrEnum):
    PENDING = "PENDING"  # deposit instructions issued, no deposit yet
    IN_PROGRESS = "IN_PROGRESS"  # deposit received; payout under way
    SUCCESS = "SUCCESS"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"


class ProviderEventType(StrEnum):
    """Progress a provider reports for a transaction."""

    DEPOSIT_RECEIVED = "DEPOSIT_RECEIVED"
    PAYOUT_SENT = "PAYOUT_SENT"
    SETTLED = "SETTLED"
    FAILED = "FAILED"
    RETURNED = "RETURNED"  # the deposit went back to the sender
    CANCELLED = "CANCELLED"  # the provider cancelled before any deposit


class Transition(NamedTuple):
    source: str
    trigger: str
    target: str
    effect: str


STEP_TRANSITIONS: dict[tuple[StepStatus, StepOutcome], StepStatus] = {
    (StepStatus.PENDING, StepOutcome.SUBMITTED): StepStatus.SUBMITTED,
    (StepStatus.PENDING, StepOutcome.VERIFIED): StepStatus.COMPLETED,
    (StepStatus.SUBMITTED, StepOutcome.VERIFIED): StepStatus.COMPLETED,
    (StepStatus.PENDING, StepOutcome.REJECTED): StepStatus.REJECTED,
    (StepStatus.SUBMITTED, StepOutcome.REJECTED): StepStatus.REJECTED,
}

STEP_EFFECTS: dict[StepOutcome, str] = {
    StepOutcome.SUBMITTED: "`submittedAt` in the step's metadata",
    StepOutcome.VERIFIED: "recorded for the customer and provider (later intents skip it); "
    "the plan moves to the next step",
    StepOutcome.REJECTED: "`reason` in the step's metadata; plan FAILED, intent FAILED",
}

TRANSACTION_TRANSITIONS: dict[tuple[TransactionStatus, ProviderEventType], TransactionStatus] = {
    (TransactionStatus.PENDING, ProviderEventType.DEPOSIT_RECEIVED): TransactionStatus.IN_PROGRESS,
    (TransactionStatus.PENDING, ProviderEventType.FAILED): TransactionStatus.FAILED,
    (TransactionStatus.PENDING, ProviderEventType.CANCELLED): TransactionStatus.CANCELLED,
    (TransactionStatus.IN_PROGRESS, ProviderEventType.PAYOUT_SENT): TransactionStatus.IN_PROGRESS,
    (TransactionStatus.IN_PROGRESS, ProviderEventType.SETTLED): TransactionStatus.SUCCESS,
    (TransactionStatus.IN_PROGRESS, ProviderEventType.FAILED): TransactionStatus.FAILED,
    (TransactionStatus.IN_PROGRESS, ProviderEventType.RETURNED): TransactionStatus.FAILED,
}

# The intent's status while it has a transaction follows the transaction's.
INTENT_STATUS_BY_TRANSACTION: dict[TransactionStatus, IntentStatus] = {
    TransactionStatus.PENDING: IntentStatus.PROCESSING,
    TransactionStatus.IN_PROGRESS: IntentStatus.PROCESSING,
    TransactionStatus.SUCCESS: IntentStatus.COMPLETED,
    TransactionStatus.FAILED: IntentStatus.FAILED,
    TransactionStatus.CANCELLED: IntentStatus.CANCELLED,
}

TERMINAL_INTENT_STATUSES = frozenset(
    {IntentStatus.COMPLETED, IntentStatus.FAILED, IntentStatus.EXPIRED, IntentStatus.CANCELLED}
)
# Until the deposit arrives nothing has moved, so expiry can still cancel.
EXPIRABLE_TRANSACTION_STATUSES = frozenset({TransactionStatus.PENDING})


def next_step_status(current: StepStatus, outcome: StepOutcome) -> StepStatus | None:
    """The step's status after `outcome`, or None when the outcome does not apply."""
    return STEP_TRANSITIONS.get((current, outcome))


def next_transaction_status(
    current: TransactionStatus, event: ProviderEventType
) -> TransactionStatus | None:
    """The transaction's status after `event`, or None when the event does not apply."""
    return TRANSACTION_TRANSITIONS.get((current, event))


# Intent and plan transitions: their triggers are workflow decisions, not lookups, so
# these rows document what `ramp.intents.lifecycle` does (its tests check each row).
INTENT_TRANSITIONS: tuple[Transition, ...] = (
    Transition(
        "(new)",
        "POST /intent",
        "PENDING",
        "provider selected, compliance plan built; with every requirement satisfied the "
        "transaction is created in the same request (then PROCESSING)",
    ),
    Transition("(new)", "POST /intent refused (400)", "(none)", "no intent is stored"),
    Transition("PENDING", "a step REJECTED", "FAILED", "`failureReason` set; workflow ends"),
    Transition(
        "PENDING",
        "transaction created (POST /intent/{id}/transaction, or autoExecute)",
        "PROCESSING",
        "deposit instructions in `transaction.context`",
    ),
    Transition("PENDING", "`expiredAt` reached", "EXPIRED", "workflow ends"),
    Transition("PENDING", "POST /intent/{id}/cancel", "CANCELLED", "workflow ends"),
    Transition(
        "PROCESSING",
        "`expiredAt` reached while the transaction is PENDING",
        "EXPIRED",
        "the provider voids the order, transaction CANCELLED; workflow ends (if the provider "
        "already holds the deposit, nothing changes and its event follows)",
    ),
    Transition("PROCESSING", "transaction SUCCESS", "COMPLETED", "workflow ends"),
    Transition("PROCESSING", "transaction FAILED", "FAILED", "`failureReason` set; workflow ends"),
    Transition("PROCESSING", "transaction CANCELLED", "CANCELLED", "workflow ends"),
    Transition(
        "PROCESSING",
        "POST /intent/{id}/cancel while the transaction is PENDING",
        "CANCELLED",
        "the provider voids the order, transaction CANCELLED; workflow ends (once the "
        "deposit is received: 409, nothing changes)",
    ),
)

PLAN_TRANSITIONS: tuple[Transition, ...] = (
    Transition("(new)", "every requirement check passes", "COMPLETED", "onboarding skipped"),
    Transition(
        "(new)",
        "a requirement check raises",
        "PENDING",
        "`currentStepCode` = first unfulfilled step",
    ),
    Transition(
        "PENDING", "the last open step COMPLETED", "COMPLETED", "with autoExecute: transaction"
    ),
    Transition("PENDING", "a step REJECTED", "FAILED", "intent FAILED"),
)


def _table(rows: list[tuple[str, str, str, str]] | list[Transition]) -> list[str]:
    lines = ["| From | Trigger | To | Effect |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    return lines


def _diagram(edges: list[tuple[str, str, str]]) -> list[str]:
    def node(name: str) -> str:
        return "[*]" if name.startswith("(") else name

    def label(text: str) -> str:
        # Mermaid takes plain words: no code marks, braces or colons.
        clean = "".join(c for c in text if c not in "`{}:")
        return f": {clean}" if clean else ""

    lines = ["```mermaid", "stateDiagram-v2"]
    lines += [f"    {node(a)} --> {node(b)}{label(text)}" for a, b, text in edges]
    lines.append("```")
    return lines


def states_markdown() -> str:
    """The state-machine section of docs/states.md, generated from the tables above."""
    out: list[str] = []
    out += ["### Intent", ""]
    out += _diagram(
        [(t.source, t.target, t.trigger) for t in INTENT_TRANSITIONS if t.target != "(none)"]
        + [(s, "[*]", "") for s in sorted(TERMINAL_INTENT_STATUSES)]
    )
    out += ["", *_table(list(INTENT_TRANSITIONS))]
    out += ["", "### Compliance plan", ""]
    out += _table(list(PLAN_TRANSITIONS))
    out += ["", "### Compliance step", ""]
    out += _diagram(
        [("(new)", "PENDING", "plan built, check raised"), ("(new)", "COMPLETED", "check passed")]
        + [(a.value, b.value, o.value) for (a, o), b in STEP_TRANSITIONS.items()]
    )
    out += [
        "",
        *_table([(a.value, f"outcome {o}", b.value, "") for (a, o), b in STEP_TRANSITIONS.items()]),
    ]
    out += ["", "### Transaction", ""]
    out += _diagram(
        [("(new)", "PENDING", "created with deposit instructions")]
        + [(a.value, b.value, e.value) for (a, e), b in TRANSACTION_TRANSITIONS.items()]
        + [("PENDING", "CANCELLED", "intent expired"), ("PENDING", "CANCELLED", "intent cancelled")]
    )
    rows: list[tuple[str, str, str, str]] = [
        (a.value, f"provider event {e}", b.value, f"intent {INTENT_STATUS_BY_TRANSACTION[b]}")
        for (a, e), b in TRANSACTION_TRANSITIONS.items()
    ]
    rows.append(("PENDING", "intent `expiredAt` reached", "CANCELLED", "intent EXPIRED"))
    rows.append(("PENDING", "POST /intent/{id}/cancel", "CANCELLED", "intent CANCELLED"))
    out += ["", *_table(rows)]
    return "\n".join(out) + "\n"
