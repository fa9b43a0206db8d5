"""The API operations the client calls, as the OpenAPI document names them.

One row per operation: its method and path, how it authenticates, its request and
response models. tests/test_python_client.py checks every row against
/v1/openapi.json, and that every operation an integrator calls has a row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel

from ramp_client import models as m

Auth = Literal["basic", "bearer"] | None


@dataclass(frozen=True)
class Endpoint:
    operation_id: str
    method: str
    path: str  # relative to /v1, with {placeholders}
    auth: Auth
    request: tuple[type[BaseModel], ...] = ()  # the bodies it takes (a oneOf: several)
    response: type[BaseModel] | None = None  # for a list: the type of its items
    listed: bool = False  # a JSON array; paged when the document gives it a cursor
    paged: bool = False
    # A creating POST: sent with an Idempotency-Key (a fresh one unless given).
    creates: bool = False
    text: bool = False  # a text/plain answer


ENDPOINTS: dict[str, Endpoint] = {
    endpoint.operation_id: endpoint
    for endpoint in (
        Endpoint("issueWalletNonce", "GET", "/walletpay/auth/nonce", None, text=True),
        Endpoint(
            "verifyWalletChallenge",
            "POST",
            "/walletpay/auth/challenge",
            None,
            (m.WalletChallenge,),
            m.WalletToken,
        ),
        Endpoint(
            "createCustomer",
            "POST",
            "/customers",
            "basic",
            (m.CreateCustomer,),
            m.CustomerResource,
            creates=True,
        ),
        Endpoint("listCustomers", "GET", "/customers", "basic", (), m.CustomerResource, True, True),
        Endpoint(
            "listSupportedRoutes",
            "GET",
            "/currencies/supported",
            "basic",
            (),
            m.RouteResource,
            True,
        ),
        Endpoint("listProviders", "GET", "/providers", "basic", (), m.ProviderResource, True),
        Endpoint(
            "getAccountRequirements",
            "GET",
            "/external-accounts/requirements",
            "basic",
            (),
            m.RequirementsResource,
        ),
        Endpoint(
            "createExternalAccounts",
            "POST",
            "/customers/external-accounts",
            "bearer",
            (m.CreateExternalAccounts,),
            m.ExternalAccountPair,
            creates=True,
        ),
        Endpoint(
            "listExternalAccounts",
            "GET",
            "/customers/external-accounts",
            "bearer",
            (),
            m.ExternalAccountResource,
            True,
            True,
        ),
        Endpoint(
            "createIntent",
            "POST",
            "/intent",
            "bearer",
            (m.CreateIntent, m.CreateIntentWithAccounts),
            m.IntentEnvelope,
            creates=True,
        ),
        Endpoint("listIntents", "GET", "/intent", "bearer", (), m.IntentEnvelope, True, True),
        Endpoint("getQuotes", "GET", "/intent/quote", "basic", (), m.QuotesResource),
        Endpoint("getIntent", "GET", "/intent/{id}", "bearer", (), m.IntentEnvelope),
        Endpoint(
            "createIntentTransaction",
            "POST",
            "/intent/{intentId}/transaction",
            "bearer",
            (m.ExecuteIntent,),
            m.IntentEnvelope,
            creates=True,
        ),
        Endpoint(
            "getIntentTransaction",
            "GET",
            "/intent/{intentId}/transaction",
            "bearer",
            (),
            m.TransactionResource,
        ),
        Endpoint("searchIntents", "GET", "/intents", "basic", (), m.IntentEnvelope, True, True),
        Endpoint(
            "getIntentSigningRequest",
            "GET",
            "/intent/{intentId}/signature",
            "bearer",
            (),
            m.SigningRequestResource,
        ),
        Endpoint(
            "submitIntentSignature",
            "POST",
            "/intent/{intentId}/signature",
            "bearer",
            (m.SubmitSignature,),
            m.SignatureAccepted,
        ),
        Endpoint(
            "cancelIntent",
            "POST",
            "/intent/{intentId}/cancel",
            "bearer",
            (m.ExecuteIntent,),
            m.IntentEnvelope,
            creates=True,
        ),
        Endpoint(
            "reportSandboxProviderEvent",
            "POST",
            "/sandbox/transactions/{id}/events",
            "basic",
            (m.SandboxProviderEvent,),
            m.ProviderEventAccepted,
        ),
        Endpoint(
            "recordSandboxStepOutcome",
            "POST",
            "/sandbox/intents/{intentId}/compliance-steps/{stepCode}",
            "basic",
            (m.SandboxStepOutcome,),
            m.StepOutcomeAccepted,
        ),
        Endpoint(
            "advanceSandboxIntentClock",
            "POST",
            "/sandbox/intents/{intentId}/advance",
            "basic",
            (m.SandboxClockAdvance,),
            m.SandboxClockAdvanced,
        ),
        Endpoint(
            "setSandboxProviderBehaviour",
            "POST",
            "/sandbox/providers/{providerId}/behaviour",
            "basic",
            (m.SandboxProviderBehaviourBody,),
            m.SandboxProviderBehaviourResource,
        ),
        Endpoint("listEvents", "GET", "/events", "basic", (), m.WebhookEvent, True, True),
        Endpoint("getEvent", "GET", "/events/{eventId}", "basic", (), m.WebhookEvent),
        Endpoint(
            "createWebhookEndpoint",
            "POST",
            "/webhooks/endpoints",
            "basic",
            (m.CreateWebhookEndpoint,),
            m.WebhookEndpointResource,
            creates=True,
        ),
        Endpoint(
            "listWebhookEndpoints",
            "GET",
            "/webhooks/endpoints",
            "basic",
            (),
            m.WebhookEndpointResource,
            True,
        ),
        Endpoint(
            "updateWebhookEndpoint",
            "PATCH",
            "/webhooks/endpoints/{id}",
            "basic",
            (m.UpdateWebhookEndpoint,),
            m.WebhookEndpointResource,
        ),
        Endpoint("deleteWebhookEndpoint", "DELETE", "/webhooks/endpoints/{id}", "basic"),
        Endpoint(
            "listWebhookDeliveries",
            "GET",
            "/webhooks/deliveries",
            "basic",
            (),
            m.WebhookDeliveryResource,
            True,
            True,
        ),
        Endpoint(
            "getWebhookDelivery",
            "GET",
            "/webhooks/deliveries/{id}",
            "basic",
            (),
            m.WebhookDeliveryResource,
        ),
        Endpoint(
            "redeliverWebhook",
            "POST",
            "/webhooks/deliveries/{id}/redeliver",
            "basic",
            (),
            m.WebhookDeliveryResource,
        ),
        Endpoint(
            "recoverWebhookEndpoint",
            "POST",
            "/webhooks/endpoints/{id}/recover",
            "basic",
            (),
            m.WebhookRecoveryResource,
        ),
        Endpoint(
            "getOnboardingOrigins",
            "GET",
            "/project/onboarding-origins",
            "basic",
            (),
            m.OnboardingOriginsResource,
        ),
        Endpoint(
            "setOnboardingOrigins",
            "PUT",
            "/project/onboarding-origins",
            "basic",
            (m.OnboardingOrigins,),
            m.OnboardingOriginsResource,
        ),
    )
}

# Documented operations the client leaves out, and why.
NOT_CALLED = {
    # The hosted onboarding page's own API: the page calls it with its link's token.
    "getOnboarding": "hosted onboarding page",
    "submitOnboardingStep": "hosted onboarding page",
    "answerOnboardingConsent": "hosted onboarding page",
    "getOnboardingSigningRequest": "hosted onboarding page",
    "submitOnboardingSignature": "hosted onboarding page",
    # Called by providers, signed with their own secrets.
    "receiveProviderWebhook": "providers' webhooks",
}
# The dashboard's admin API (operation ids under /admin) is for the dashboard and
# organization API keys, not for a project's integration.
ADMIN_PREFIX = "/admin"
