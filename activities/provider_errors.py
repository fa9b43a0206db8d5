"""The activity boundary of provider calls: the one place the connector contract's
provider-neutral errors (ramp/adapters/contract.py) become Temporal's.

- `ProviderOutOfService` -> not retried (PROVIDER_OUT_OF_SERVICE): the provider says it
  is not serving; the intent fails over (ramp/routing);
- `ProviderUnavailable` -> retried (honouring the provider's Retry-After as a floor);
- `ProviderRefused` -> not retried: the workflow fails the step or the intent with the
  reason (and the fields it names); one that is not `final` (PROVIDER_DECLINED) leaves
  the intent as it was, for the client to ask again;
- `CredentialsRejected` -> retried slowly (the caller first marks the account
  UNHEALTHY: activities/providers.py), so in-flight intents resume once the owner sets
  working credentials;
- `NotSupported` -> not retried;
- anything else raised in a provider activity is ours (the database, a bug), not the
  provider's -> retried like an outage, as INTERNAL_FAILURE (`internal_failures`), so
  the workflow never holds it against the provider (workflows/provider_calls.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from ramp.adapters.contract import (
    CredentialsRejected,
    NotSupported,
    ProviderError,
    ProviderOutOfService,
    ProviderRefused,
    ProviderUnavailable,
)
from ramp.errors import ProviderCallError

# After a credentials refusal: long enough not to hammer the provider, short enough
# that an intent resumes soon after the owner sets working credentials.
CREDENTIALS_RETRY_DELAY = timedelta(minutes=1)


def backoff(attempt: int) -> float:
    """The provider calls' retry policy, as seconds after `attempt`: 1, 2, 4... up to 5 min."""
    return float(min(2 ** max(attempt - 1, 0), 300))


def temporal_error(error: ProviderError, attempt: int) -> ApplicationError:
    """`error` as the activity fails with it (`attempt`: the activity's, from 1)."""
    if isinstance(error, ProviderOutOfService):
        return ApplicationError(
            str(error), type=ProviderCallError.PROVIDER_OUT_OF_SERVICE, non_retryable=True
        )
    if isinstance(error, ProviderUnavailable):
        delay = max(backoff(attempt), error.retry_after or 0.0)
        return ApplicationError(
            str(error),
            type=ProviderCallError.PROVIDER_UNAVAILABLE,
            next_retry_delay=timedelta(seconds=delay),
        )
    if isinstance(error, CredentialsRejected):
        return ApplicationError(
            str(error),
            type=ProviderCallError.PROVIDER_CREDENTIALS_REJECTED,
            next_retry_delay=CREDENTIALS_RETRY_DELAY,
        )
    if isinstance(error, ProviderRefused):
        return ApplicationError(
            error.reason,
            {"fields": error.fields},
            type=ProviderCallError.PROVIDER_REFUSED
            if error.final
            else ProviderCallError.PROVIDER_DECLINED,
            non_retryable=True,
            category=ApplicationErrorCategory.BENIGN,
        )
    if isinstance(error, NotSupported):
        return ApplicationError(
            str(error),
            type=ProviderCallError.PROVIDER_NOT_SUPPORTED,
            non_retryable=True,
            category=ApplicationErrorCategory.BENIGN,
        )
    # Any other failure of the provider (a verification failure has no place in an
    # activity): retried like an outage.
    return ApplicationError(str(error), type=ProviderCallError.PROVIDER_UNAVAILABLE)


@contextmanager
def internal_failures() -> Iterator[None]:
    """A provider activity's body: an error of ours raised in it (the database, a bug:
    anything not the provider's) leaves as INTERNAL_FAILURE, retried like an outage. Its
    words and trace are for the operators (the activity's failure), never a client's."""
    try:
        yield
    except ApplicationError:
        raise  # already typed (by `_calling`)
    except ProviderError as error:  # the provider's, raised outside `_calling`
        raise temporal_error(error, activity.info().attempt) from None
    except Exception as error:
        raise ApplicationError(
            f"{type(error).__name__}: {error}", type=ProviderCallError.INTERNAL_FAILURE
        ) from error
