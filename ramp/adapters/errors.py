"""The one error family every connector raises (ramp/adapters/contract.py re-exports
it): provider-neutral, so that the activity boundary (activities/provider_errors.py)
alone turns it into Temporal's and the health of an account (ramp/routing) counts what
is the provider's fault and never what is one customer's or one transfer's."""

from __future__ import annotations

from collections.abc import Mapping


class ProviderError(Exception):
    """Base of every provider-neutral error a connector raises."""


class ProviderUnavailable(ProviderError):
    """Retry later: a timeout, a 5xx, a 429. `retry_after` is the provider's hint (s)."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ProviderOutOfService(ProviderUnavailable):
    """The provider is not serving for reasons of its own (down, or refusing transfers
    while it is: a maintenance, its own limits), and says so at once: not retried within
    the call, counted against the account's health, and an intent whose order it was
    fails over to its next eligible provider (ramp/routing, workflows/failover.py).
    Never a refusal of one customer or one transfer: that is `ProviderRefused`."""


class ProviderRefused(ProviderError):
    """The provider refused the request itself: never retried by us.

    `reason` is in our words (safe to show the project); `fields` maps our JSON
    pointers (into the account metadata or order) to the provider's complaint.
    `final` (the default): the request can never succeed, so the intent fails with
    the reason. Not final: the provider declined this attempt only (the sandbox's
    test refusal, a maintenance window): the intent stays without a transaction and
    the client may ask again (`POST /intent/{id}/transaction` answers 502).
    """

    def __init__(
        self, reason: str, fields: Mapping[str, str] | None = None, *, final: bool = True
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.fields = dict(fields or {})
        self.final = final


class CredentialsRejected(ProviderError):
    """The provider does not accept the account's credentials: the account is unhealthy."""


class NotSupported(ProviderError):
    """The provider does not offer this flow (or not in this state of the object)."""


class WebhookRejected(ProviderError):
    """An inbound webhook failed verification (signature, staleness): apply nothing."""
