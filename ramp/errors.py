"""The refusals of the application services, as our own exception types.

A service raises one of these with the error code and the words a client reads; the API
maps each type to an HTTP status in one place (api/errors.py), the CLI prints the
message. Nothing here knows about HTTP.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class DomainError(Exception):
    """A use case refused: `code` names why (the API's error code), `message` says it."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}


class InvalidInput(DomainError):
    """The input breaks a rule of the domain (a schema, a route, an origin)."""


class NotFound(DomainError):
    """The thing does not exist, or not for this caller: both read alike."""

    def __init__(self, what: str) -> None:
        super().__init__("NOT_FOUND", f"{what} not found")


class Conflict(DomainError):
    """The input is fine but the current state refuses it."""


class NotAuthenticated(DomainError):
    """A proof of identity did not hold; `scheme` names the kind of proof expected."""

    def __init__(
        self, code: str, message: str, scheme: str, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(code, message, details)
        self.scheme = scheme


class Forbidden(DomainError):
    """The caller is known, but its role does not allow this (the dashboard's roles)."""


class Refused(DomainError):
    """The request is well formed but the intent refuses it in its present state (the
    specification answers these with 400, such as TRANSACTION_EXISTS)."""


class Unprocessable(DomainError):
    """The request is well formed but cannot be taken as sent (an Idempotency-Key
    already used for another request): 422, as the reference and Bridge answer."""


class ProviderFailed(DomainError):
    """The payment provider did not accept what we asked of it."""


class Unavailable(DomainError):
    """Our own dependencies did not answer; the same request may succeed later."""


class Throttled(DomainError):
    """Too many attempts from this caller: the next one is let through after
    `retry_after_seconds` (whole seconds, at least 1)."""

    def __init__(self, code: str, message: str, retry_after_seconds: int) -> None:
        super().__init__(code, message, {"retryAfterSeconds": retry_after_seconds})
        self.retry_after_seconds = retry_after_seconds


# --- the catalogue of error codes -----------------------------------------------------
# Every code a use case of intents and onboarding refuses with, and the kind of refusal
# each one is. A workflow update fails with an ApplicationError whose `type` is one of
# these codes; `refusal()` turns it back into the domain error.


class IntentError(StrEnum):
    EXTERNAL_ACCOUNT_NOT_FOUND = "EXTERNAL_ACCOUNT_NOT_FOUND"
    NO_ELIGIBLE_PROVIDER = "NO_ELIGIBLE_PROVIDER"
    PROVIDER_NOT_ELIGIBLE = "PROVIDER_NOT_ELIGIBLE"
    AMOUNT_VALIDATION_ERROR = "AMOUNT_VALIDATION_ERROR"
    TRANSACTION_EXISTS = "TRANSACTION_EXISTS"
    COMPLIANCE_NOT_COMPLETE = "COMPLIANCE_NOT_COMPLETE"
    INTENT_CLOSED = "INTENT_CLOSED"
    # The provider did not accept the order (it refused, or kept failing).
    PROVIDER_ERROR = "PROVIDER_ERROR"
    # Our own dependencies (database, workflow engine) kept failing; nothing was created.
    TEMPORARILY_UNAVAILABLE = "TEMPORARILY_UNAVAILABLE"
    # POST /intent/{id}/cancel too late (409): `details.reason` is a CancelRefusal.
    INTENT_NOT_CANCELLABLE = "INTENT_NOT_CANCELLABLE"
    # onboardingRedirectUrl / checkoutRedirectUrl off the project's allowed origins (400).
    REDIRECT_URL_NOT_ALLOWED = "REDIRECT_URL_NOT_ALLOWED"
    # POST /intent with a quoteId past its validity (409), or not a live quote of the
    # project, or for another payment (400) (issue 26).
    QUOTE_EXPIRED = "QUOTE_EXPIRED"
    QUOTE_NOT_FOUND = "QUOTE_NOT_FOUND"
    # A sandbox intent created before sandbox clocks: its timers cannot be moved (409).
    CLOCK_NOT_MOVABLE = "CLOCK_NOT_MOVABLE"
    # A wallet signature for the intent's provider (issue 27): none is asked now (409),
    # or the one given is not of the message to sign (400).
    NOTHING_TO_SIGN = "NOTHING_TO_SIGN"
    SIGNATURE_REFUSED = "SIGNATURE_REFUSED"


class CancelRefusal(StrEnum):
    """Why an intent cannot be cancelled (`details.reason` of INTENT_NOT_CANCELLABLE)."""

    # The provider holds the customer's deposit: the money is moving.
    DEPOSIT_RECEIVED = "DEPOSIT_RECEIVED"
    # The intent already has a final status.
    INTENT_CLOSED = "INTENT_CLOSED"


class RequestError(StrEnum):
    """Refusals of a request's form, whatever the resource."""

    VALIDATION_ERROR = "VALIDATION_ERROR"
    NOT_FOUND = "NOT_FOUND"
    INVALID_IDEMPOTENCY_KEY = "INVALID_IDEMPOTENCY_KEY"
    IDEMPOTENCY_KEY_REUSED = "IDEMPOTENCY_KEY_REUSED"
    # Another request with the same Idempotency-Key is still running (409).
    IDEMPOTENCY_KEY_IN_USE = "IDEMPOTENCY_KEY_IN_USE"


class ThrottleError(StrEnum):
    """Refusals of throttling (429, with Retry-After)."""

    # A project's (or an address's, on unauthenticated endpoints) request budget is used up.
    RATE_LIMITED = "RATE_LIMITED"
    # Too many failed client-credential checks from this address (for this client id).
    AUTH_THROTTLED = "AUTH_THROTTLED"
    # Too many failed dashboard logins from this address (for this account): wait.
    LOGIN_THROTTLED = "LOGIN_THROTTLED"


class StepError(StrEnum):
    """Why a compliance step (or a transaction, for INVALID_TRANSITION) cannot move."""

    STEP_NOT_CURRENT = "STEP_NOT_CURRENT"
    COMPLIANCE_CLOSED = "COMPLIANCE_CLOSED"
    INVALID_TRANSITION = "INVALID_TRANSITION"
    STEP_NOT_SUPPORTED = "STEP_NOT_SUPPORTED"


class OnboardingError(StrEnum):
    """The hosted onboarding's own refusals: its link, and verification of a submission."""

    MISSING_CREDENTIALS = "MISSING_CREDENTIALS"
    INVALID_AUTH_SCHEME = "INVALID_AUTH_SCHEME"
    INVALID_TOKEN = "INVALID_TOKEN"  # noqa: S105 (an error code)
    TOKEN_EXPIRED = "TOKEN_EXPIRED"  # noqa: S105 (an error code)
    VERIFICATION_UNAVAILABLE = "VERIFICATION_UNAVAILABLE"
    SUBMISSION_NOT_FOUND = "SUBMISSION_NOT_FOUND"


class ProviderRefusal(StrEnum):
    """What a provider adapter refuses with (the workflow answers PROVIDER_ERROR)."""

    PROVIDER_REFUSED = "PROVIDER_REFUSED"
    # The provider already holds the deposit: its event is on the way.
    ORDER_NOT_CANCELLABLE = "ORDER_NOT_CANCELLABLE"


class ProviderCallError(StrEnum):
    """The ApplicationError types the provider activities fail with (activities/providers.py):
    the workflow reads them, a client never sees them (it reads PROVIDER_ERROR)."""

    # Retried by Temporal (the provider's Retry-After as a floor).
    PROVIDER_UNAVAILABLE = "PROVIDER_UNAVAILABLE"
    # Never retried: the intent fails with the provider's reason (the same code as
    # ProviderRefusal.PROVIDER_REFUSED: one refusal, whichever side raised it).
    PROVIDER_REFUSED = "PROVIDER_REFUSED"
    # The provider does not accept the account's key: retried, slowly.
    PROVIDER_CREDENTIALS_REJECTED = "PROVIDER_CREDENTIALS_REJECTED"
    PROVIDER_NOT_SUPPORTED = "PROVIDER_NOT_SUPPORTED"
    # Never retried, and the intent stays as it was: the client may ask again.
    PROVIDER_DECLINED = "PROVIDER_DECLINED"
    # Never retried: the provider is out of service for its own reasons; the intent
    # fails over to its next eligible provider (issue 26).
    PROVIDER_OUT_OF_SERVICE = "PROVIDER_OUT_OF_SERVICE"
    # Ours, not the provider's: the activity failed for a reason of the service's own
    # (the database, a bug). Retried like an outage, never counted against the provider
    # account, never a reason to fail over (patch `internal-order-error-kept`).
    INTERNAL_FAILURE = "INTERNAL_FAILURE"


class ProviderWebhookError(StrEnum):
    """Refusals of `POST /v1/provider-webhooks/{providerAccountId}`."""

    # Forged, stale or unsigned (401 with a `Signature` challenge); nothing stored.
    INVALID_WEBHOOK_SIGNATURE = "INVALID_WEBHOOK_SIGNATURE"


class OidcError(StrEnum):
    """Why an OIDC ID token was refused (ramp/identity/oidc.py): `details.reason` of
    INVALID_SUBJECT_TOKEN."""

    OIDC_MALFORMED = "OIDC_MALFORMED"
    OIDC_INVALID_SIGNATURE = "OIDC_INVALID_SIGNATURE"
    OIDC_EXPIRED = "OIDC_EXPIRED"
    OIDC_NOT_YET_VALID = "OIDC_NOT_YET_VALID"
    OIDC_AUDIENCE_MISMATCH = "OIDC_AUDIENCE_MISMATCH"
    OIDC_UNTRUSTED_ISSUER = "OIDC_UNTRUSTED_ISSUER"
    OIDC_MISSING_CLAIM = "OIDC_MISSING_CLAIM"
    OIDC_UNSUPPORTED_ALGORITHM = "OIDC_UNSUPPORTED_ALGORITHM"
    OIDC_INVALID_KEY = "OIDC_INVALID_KEY"
    OIDC_INVALID_CLAIMS = "OIDC_INVALID_CLAIMS"
    OIDC_UNKNOWN_KEY = "OIDC_UNKNOWN_KEY"
    # The issuer's signing keys could not be fetched: worth a retry.
    OIDC_KEYS_UNAVAILABLE = "OIDC_KEYS_UNAVAILABLE"


class SiweError(StrEnum):
    """Why a wallet sign-in (EIP-4361) was refused (ramp/identity/wallet.py,
    ramp/customers/wallet.py): SIWE_MALFORMED is a 400, the others a 401 with a
    `SIWE` challenge."""

    SIWE_MALFORMED = "SIWE_MALFORMED"
    SIWE_DOMAIN_MISMATCH = "SIWE_DOMAIN_MISMATCH"
    SIWE_URI_MISMATCH = "SIWE_URI_MISMATCH"
    SIWE_SCHEME_MISMATCH = "SIWE_SCHEME_MISMATCH"
    SIWE_CHAIN_MISMATCH = "SIWE_CHAIN_MISMATCH"
    SIWE_EXPIRED = "SIWE_EXPIRED"
    SIWE_NOT_YET_VALID = "SIWE_NOT_YET_VALID"
    SIWE_BAD_SIGNATURE = "SIWE_BAD_SIGNATURE"
    SIWE_NONCE_MISMATCH = "SIWE_NONCE_MISMATCH"
    SIWE_VERIFICATION_FAILED = "SIWE_VERIFICATION_FAILED"
    SIWE_ISSUED_AT_TOO_OLD = "SIWE_ISSUED_AT_TOO_OLD"
    SIWE_ISSUED_AT_IN_FUTURE = "SIWE_ISSUED_AT_IN_FUTURE"
    # The nonce is unknown, expired or already spent.
    SIWE_NONCE_INVALID = "SIWE_NONCE_INVALID"


class ProviderAccountError(StrEnum):
    """Refusals when a project owner connects (or changes) a provider account."""

    UNKNOWN_PROVIDER = "UNKNOWN_PROVIDER"
    # The credentials break the provider's schema, or the provider refused them.
    INVALID_CREDENTIALS = "INVALID_CREDENTIALS"
    # The provider did not answer the check: nothing was stored; try again.
    PROVIDER_UNREACHABLE = "PROVIDER_UNREACHABLE"
    # Sandbox projects route through the mock providers only.
    SANDBOX_PROJECT = "SANDBOX_PROJECT"


class WebhookError(StrEnum):
    INVALID_WEBHOOK_ENDPOINT = "INVALID_WEBHOOK_ENDPOINT"
    # A redelivery or recovery to an endpoint that is disabled or was removed.
    ENDPOINT_DISABLED = "ENDPOINT_DISABLED"


class DashboardError(StrEnum):
    """The dashboard's and the admin API's refusals (ramp/organizations)."""

    NOT_LOGGED_IN = "NOT_LOGGED_IN"
    INVALID_LOGIN = "INVALID_LOGIN"
    SESSION_EXPIRED = "SESSION_EXPIRED"
    INVALID_API_KEY = "INVALID_API_KEY"
    CSRF_FAILED = "CSRF_FAILED"
    FORBIDDEN = "FORBIDDEN"
    # A trusted issuer's setting refused (its JWKS URL off the network policy, say).
    INVALID_ISSUER = "INVALID_ISSUER"
    INVALID_LINK = "INVALID_LINK"
    WEAK_PASSWORD = "WEAK_PASSWORD"  # noqa: S105 (an error code)
    MEMBER_EXISTS = "MEMBER_EXISTS"
    LAST_OWNER = "LAST_OWNER"
    TOTP_REQUIRED = "TOTP_REQUIRED"
    INVALID_TOTP = "INVALID_TOTP"


# The kind of each code a workflow's update can fail with.
_KIND_BY_CODE: dict[str, type[DomainError]] = {
    IntentError.EXTERNAL_ACCOUNT_NOT_FOUND: InvalidInput,
    IntentError.NO_ELIGIBLE_PROVIDER: InvalidInput,
    IntentError.PROVIDER_NOT_ELIGIBLE: InvalidInput,
    IntentError.AMOUNT_VALIDATION_ERROR: InvalidInput,
    IntentError.TRANSACTION_EXISTS: Refused,
    IntentError.COMPLIANCE_NOT_COMPLETE: Refused,
    IntentError.INTENT_CLOSED: Refused,
    IntentError.PROVIDER_ERROR: ProviderFailed,
    IntentError.TEMPORARILY_UNAVAILABLE: Unavailable,
    IntentError.INTENT_NOT_CANCELLABLE: Conflict,
    IntentError.QUOTE_EXPIRED: Conflict,
    IntentError.QUOTE_NOT_FOUND: InvalidInput,
    IntentError.CLOCK_NOT_MOVABLE: Conflict,
    StepError.STEP_NOT_CURRENT: Conflict,
    StepError.COMPLIANCE_CLOSED: Conflict,
    StepError.INVALID_TRANSITION: Conflict,
    OnboardingError.VERIFICATION_UNAVAILABLE: Unavailable,
    OnboardingError.SUBMISSION_NOT_FOUND: Unavailable,
}


def refusal(code: str, message: str, details: dict[str, Any] | None = None) -> DomainError | None:
    """The domain error a catalogued `code` names; None for a code not in the catalogue."""
    kind = _KIND_BY_CODE.get(code)
    return None if kind is None else kind(code, message, details)
