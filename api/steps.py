"""Where api/onboarding.py and api/sandbox.py find the step check, until their handlers
call their services directly (the check is ramp/intents/step_check.py; its refusals
reach the envelope through api/errors.py)."""

from __future__ import annotations

from ramp.intents.step_check import check_step_outcome

__all__ = ["check_step_outcome"]
