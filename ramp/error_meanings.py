"""What each error code a client can read means: the words of the API reference.

The codes themselves live in the catalogue (ramp/errors.py) or where a request's form is
refused (api/); this says, for every one of them, what happened and what to do. The
OpenAPI document lists them (api/openapi.py); tests/test_api_reference.py fails on a
code raised anywhere without a meaning here, and on a meaning of no code.
"""

from __future__ import annotations

from ramp.errors import (
    CancelRefusal,
    DashboardError,
    IntentError,
    OidcError,
    OnboardingError,
    ProviderAccountError,
    ProviderRefusal,
    ProviderWebhookError,
    RequestError,
    SiweError,
    StepError,
    ThrottleError,
    WebhookError,
)

_OIDC = "An ID token (`subject_token`) was refused, `details.reason` of INVALID_SUBJECT_TOKEN: "
_SIWE = "A wallet sign-in was refused: "

ERROR_MEANINGS: dict[str, str] = {
    # The request's form (any endpoint).
    "INVALID_JSON": "The body is not acceptable JSON (syntax, duplicate keys, NaN, depth, "
    "encoding); `details.fields` points at the problem",
    RequestError.VALIDATION_ERROR: "A field is missing, unknown or of the wrong type or "
    "shape; `details.fields` lists each by JSON pointer",
    "UNSUPPORTED_MEDIA_TYPE": "The body is not `application/json` in UTF-8",
    "PAYLOAD_TOO_LARGE": "The body is larger than the endpoint accepts (413)",
    "INVALID_URL": "The URL holds control characters or cannot be read",
    "INVALID_CURSOR": "The cursor was not issued for this list and caller (take it from "
    "the `Link` header)",
    RequestError.NOT_FOUND: "No such resource for this caller (another's reads the same)",
    "METHOD_NOT_ALLOWED": "The path exists but not with this method (`Allow` names them)",
    "INTERNAL_ERROR": "An unexpected failure on our side (500); it is logged; retry later",
    RequestError.INVALID_IDEMPOTENCY_KEY: "The Idempotency-Key is not 1 to 255 printable "
    "characters",
    RequestError.IDEMPOTENCY_KEY_REUSED: "The Idempotency-Key was used with another "
    "request (422): use a new key for a new request",
    RequestError.IDEMPOTENCY_KEY_IN_USE: "A request with this Idempotency-Key is still "
    "running (409): retry after it ends",
    # Authentication and throttling.
    "MISSING_CREDENTIALS": "No Authorization header (401)",
    "INVALID_AUTH_SCHEME": "The Authorization header has the wrong scheme for the "
    "endpoint (Basic for a project, Bearer for a customer)",
    "INVALID_CREDENTIALS": "The client id and secret do not match a project; on a provider "
    "account: the provider refused its credentials",
    "INVALID_TOKEN": "The bearer token is not one we issued, or not for this call",
    "TOKEN_EXPIRED": "The bearer token has expired: get a new one (POST /customers, or a "
    "new frontendUrl)",
    ThrottleError.RATE_LIMITED: "The request budget is used up (429): wait `Retry-After` seconds",
    ThrottleError.AUTH_THROTTLED: "Too many failed credential checks from this address "
    "(429): wait `Retry-After` seconds",
    ThrottleError.LOGIN_THROTTLED: "Too many failed dashboard logins (429): wait",
    # Customers and identities.
    "INVALID_SUBJECT_TOKEN": "The `subject_token` was refused; `details.reason` says why",
    "UNTRUSTED_ISSUER": "The ID token's issuer is not trusted by the project",
    "WALLET_TOKEN_INVALID": "The wallet sign-in token is invalid or expired",
    "IDENTITY_ALREADY_LINKED": "The identity already belongs to another customer of the "
    "project (409)",
    **{
        code: _OIDC + words
        for code, words in (
            (OidcError.OIDC_MALFORMED, "it is not a JWT"),
            (OidcError.OIDC_INVALID_SIGNATURE, "its signature does not verify"),
            (OidcError.OIDC_EXPIRED, "it has expired"),
            (OidcError.OIDC_NOT_YET_VALID, "it is not valid yet"),
            (OidcError.OIDC_AUDIENCE_MISMATCH, "its audience is not one the issuer's trust names"),
            (OidcError.OIDC_UNTRUSTED_ISSUER, "its issuer is not trusted"),
            (OidcError.OIDC_MISSING_CLAIM, "a required claim is missing"),
            (OidcError.OIDC_UNSUPPORTED_ALGORITHM, "its algorithm is not accepted"),
            (OidcError.OIDC_INVALID_KEY, "the issuer's key cannot verify it"),
            (OidcError.OIDC_INVALID_CLAIMS, "a claim has an invalid value"),
            (OidcError.OIDC_UNKNOWN_KEY, "its key id is not in the issuer's key set"),
            (OidcError.OIDC_KEYS_UNAVAILABLE, "the issuer's keys could not be fetched; retry"),
        )
    },
    **{
        code: _SIWE + words
        for code, words in (
            (SiweError.SIWE_MALFORMED, "the message is not an EIP-4361 message (400)"),
            (SiweError.SIWE_DOMAIN_MISMATCH, "the message names another domain"),
            (SiweError.SIWE_URI_MISMATCH, "the message names another URI"),
            (SiweError.SIWE_SCHEME_MISMATCH, "the message names another scheme"),
            (SiweError.SIWE_CHAIN_MISMATCH, "the message names another chain"),
            (SiweError.SIWE_EXPIRED, "the message has expired"),
            (SiweError.SIWE_NOT_YET_VALID, "the message is not valid yet"),
            (SiweError.SIWE_BAD_SIGNATURE, "the signature is not the address's"),
            (SiweError.SIWE_NONCE_MISMATCH, "the message's nonce is not ours"),
            (SiweError.SIWE_VERIFICATION_FAILED, "the message could not be verified"),
            (SiweError.SIWE_ISSUED_AT_TOO_OLD, "the message was issued too long ago"),
            (SiweError.SIWE_ISSUED_AT_IN_FUTURE, "the message is issued in the future"),
            (SiweError.SIWE_NONCE_INVALID, "the nonce is unknown, expired or already spent"),
        )
    },
    # Routes and accounts.
    "UNSUPPORTED_ROUTE": "No provider of the project serves this src -> dest route (or "
    "the project routes through none)",
    "SCHEMA_VALIDATION_FAILED": "An account does not match the route's schema; "
    "`details.fields` points at each field (`/source/accountIdentifier/routingNumber`)",
    # Intents.
    IntentError.EXTERNAL_ACCOUNT_NOT_FOUND: "An account id is not one of the customer's",
    IntentError.NO_ELIGIBLE_PROVIDER: "No provider serves these accounts and amount",
    IntentError.PROVIDER_NOT_ELIGIBLE: "The `providerId` asked for cannot serve this intent",
    IntentError.AMOUNT_VALIDATION_ERROR: "The amount is not a decimal the currency allows, "
    "or outside the provider's limits; `details` says which",
    IntentError.TRANSACTION_EXISTS: "The intent already has its transaction",
    IntentError.COMPLIANCE_NOT_COMPLETE: "The compliance plan is not complete: no transaction yet",
    IntentError.INTENT_CLOSED: "The intent has a final status: nothing more can happen",
    IntentError.PROVIDER_ERROR: "The provider did not accept the order (502); `details` "
    "has its reason",
    IntentError.TEMPORARILY_UNAVAILABLE: "Our dependencies did not answer, or the service "
    "failed placing the order (503); retry with the same Idempotency-Key "
    "(`details.idempotencyKey` when you sent none). A create may have stored the intent "
    "(`details.intentId`); an order the service failed to place created nothing",
    IntentError.INTENT_NOT_CANCELLABLE: "Too late to cancel (409); `details.reason` is "
    "DEPOSIT_RECEIVED or INTENT_CLOSED",
    CancelRefusal.DEPOSIT_RECEIVED: "(`details.reason`) The provider holds the deposit: "
    "the money is moving",
    IntentError.REDIRECT_URL_NOT_ALLOWED: "A redirect URL's origin is not one of the "
    "project's onboarding origins",
    IntentError.QUOTE_NOT_FOUND: "The `quoteId` is not a quote `GET /v1/intent/quote` gave "
    "the project, or it prices another payment (route, rail, amount or provider) than the "
    "intent's; `details.fields` points at `/quoteId`",
    IntentError.QUOTE_EXPIRED: "The quote's validity (its `expiresAt`) has passed (409); "
    "ask `GET /v1/intent/quote` for a new one",
    IntentError.NOTHING_TO_SIGN: "The intent's provider asks for no wallet signature now "
    "(409): nothing to link and no order to authorise; read the intent and try later",
    IntentError.SIGNATURE_REFUSED: "The signature is not of the message to sign, not by "
    "the wallet that must sign, or past the message's time window (400); sign the "
    "message the signing request gives again",
    IntentError.CLOCK_NOT_MOVABLE: "Sandbox only: the intent was created before sandbox "
    "clocks existed, so its timers cannot be moved (409)",
    ProviderRefusal.PROVIDER_REFUSED: "(`details`) The provider refused the order",
    ProviderRefusal.ORDER_NOT_CANCELLABLE: "(`details`) The provider can no longer cancel "
    "the order",
    # Compliance steps and the hosted onboarding.
    StepError.STEP_NOT_CURRENT: "The step is not the current one of the plan (409)",
    StepError.COMPLIANCE_CLOSED: "The compliance plan has ended (409)",
    StepError.INVALID_TRANSITION: "The step or transaction cannot move to that status from "
    "its present one (409)",
    StepError.STEP_NOT_SUPPORTED: "The step cannot be submitted here (the provider collects "
    "it itself)",
    OnboardingError.VERIFICATION_UNAVAILABLE: "The verification of a submission did not "
    "answer (503); retry",
    OnboardingError.SUBMISSION_NOT_FOUND: "The submission to verify is gone (503); submit "
    "the step again",
    # Webhooks.
    WebhookError.INVALID_WEBHOOK_ENDPOINT: "The endpoint's URL or settings are refused "
    "(network policy, limits); `details.fields` names the field",
    WebhookError.ENDPOINT_DISABLED: "The endpoint is disabled or removed: enable it first (409)",
    ProviderWebhookError.INVALID_WEBHOOK_SIGNATURE: "A provider's webhook is unsigned, "
    "forged or stale (401); nothing was stored",
    # Provider accounts and projects (dashboard, admin API).
    ProviderAccountError.UNKNOWN_PROVIDER: "No such provider",
    ProviderAccountError.PROVIDER_UNREACHABLE: "The provider did not answer the credentials "
    "check; nothing stored; retry",
    ProviderAccountError.SANDBOX_PROJECT: "Sandbox projects route through the mock providers only",
    "ROTATION_REFUSED": "A secret rotation is refused while the previous one's grace "
    "period runs (unless forced)",
    DashboardError.NOT_LOGGED_IN: "No dashboard session (401)",
    DashboardError.INVALID_LOGIN: "Wrong email or password",
    DashboardError.SESSION_EXPIRED: "The dashboard session has expired: log in again",
    DashboardError.INVALID_API_KEY: "The organization API key is unknown or revoked",
    DashboardError.CSRF_FAILED: "The X-CSRF-Token header is missing or wrong",
    DashboardError.FORBIDDEN: "The caller's role does not allow this (403)",
    DashboardError.INVALID_ISSUER: "A trusted issuer's setting is refused (its JWKS URL "
    "off the network policy, say)",
    DashboardError.INVALID_LINK: "The invitation or reset link is invalid or expired",
    DashboardError.WEAK_PASSWORD: "The password is too weak",
    DashboardError.MEMBER_EXISTS: "The email already belongs to a member",
    DashboardError.LAST_OWNER: "The organization's last owner cannot leave or be demoted",
    DashboardError.TOTP_REQUIRED: "A second factor (TOTP) is required",
    DashboardError.INVALID_TOTP: "The second factor's code is wrong",
}
